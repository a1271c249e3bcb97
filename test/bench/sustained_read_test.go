package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Phases of the sustained benchmark a read is recorded in.
const (
	phaseDuring = "during" // while project A's calls stream in
	phaseAfter  = "after"  // from the last acknowledgement, the mergers draining
)

// readKey names one series of timed reads.
type readKey struct{ reader, phase, name, rng string }

// readLog records every timed read of the sustained benchmark: latencies
// of the 200s per series, every status per reader and phase, and the
// first few failures word for word.
type readLog struct {
	mu       sync.Mutex
	took     map[readKey][]time.Duration
	statuses map[[2]string]map[int]int // {reader, phase} → status → count; 0 is a transport error
	notFound map[string]bool           // reports this build does not serve
	failures []string
}

func newReadLog() *readLog {
	return &readLog{took: map[readKey][]time.Duration{}, statuses: map[[2]string]map[int]int{}, notFound: map[string]bool{}}
}

// add records one read (detail: what a failed one answered). A 5xx is
// printed at once, loudly: the benchmark fails on it at the end, after
// printing everything.
func (l *readLog) add(reader, phase, name, rng string, status int, took time.Duration, detail string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := [2]string{reader, phase}
	if l.statuses[k] == nil {
		l.statuses[k] = map[int]int{}
	}
	l.statuses[k][status]++
	switch {
	case status == http.StatusOK:
		rk := readKey{reader, phase, name, rng}
		l.took[rk] = append(l.took[rk], took)
	case status == http.StatusNotFound && reader != "health" && strings.Contains(detail, "no route"):
		// The router's 404: this build has no such endpoint. A report's own
		// 404 (the distribution before the back-filler has a run) counts
		// as a failed read below.
		l.notFound[name] = true
	default:
		if status >= 500 {
			fmt.Printf("!!! %s read %s %s (%s): %d after %s: %s\n", reader, name, rng, phase, status, took.Round(time.Millisecond), detail)
		}
		if len(l.failures) < 20 {
			l.failures = append(l.failures, fmt.Sprintf("%s %s %s %s: %d after %s: %s", reader, phase, name, rng, status,
				took.Round(time.Millisecond), detail))
		}
	}
}

// sorted returns one series' latencies, sorted.
func (l *readLog) sorted(reader, phase, name, rng string) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := slices.Clone(l.took[readKey{reader, phase, name, rng}])
	slices.Sort(s)
	return s
}

// count5xx is how many 5xx (and transport errors, status 0) a reader met
// in a phase.
func (l *readLog) count5xx(reader, phase string) (n5xx, nErr int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for st, n := range l.statuses[[2]string{reader, phase}] {
		if st >= 500 {
			n5xx += n
		} else if st == 0 {
			nErr += n
		}
	}
	return n5xx, nErr
}

// timedRead is one report over one range.
type timedRead struct{ name, rng, path string }

// reportReads lists every report of reports over ranges, then the agents
// summary over 30d (its target is stated at 30d).
func reportReads() []timedRead {
	var out []timedRead
	for _, rep := range reports {
		for _, rng := range ranges {
			out = append(out, timedRead{strings.TrimPrefix(rep.path, "/v1/analytics/"), rng, rep.path + "?range=" + rng})
		}
	}
	return append(out, timedRead{"agents/summary", "30d", "/v1/analytics/agents/summary?range=30d"})
}

// readOnce times one GET, reading the body to the end; detail is the
// start of the body (or the error) of an answer other than 200, for the
// failures list.
func readOnce(srv *llmcost, key, path string) (status int, took time.Duration, detail string) {
	t0 := time.Now()
	status, raw, err := srv.do("GET", path, key, nil)
	took = time.Since(t0)
	switch {
	case err != nil:
		return 0, took, err.Error()
	case status != http.StatusOK:
		return status, took, fmt.Sprintf("%.300s", raw)
	}
	return status, took, ""
}

// readCycling reads every report in turn, starting one read every every
// (at once when the previous took longer; back to back when every is 0),
// until ctx ends, recording each under reader and phase; a report the
// build does not serve (404) is skipped from then on.
func readCycling(ctx context.Context, srv *llmcost, key, reader, phase string, every time.Duration, log *readLog) {
	reads := reportReads()
	next := time.Now()
	for ctx.Err() == nil {
		for _, r := range reads {
			if every > 0 {
				select {
				case <-ctx.Done():
				case <-time.After(time.Until(next)):
				}
				next = later(next.Add(every), time.Now())
			}
			if ctx.Err() != nil {
				return
			}
			log.mu.Lock()
			skip := log.notFound[r.name]
			log.mu.Unlock()
			if skip {
				continue
			}
			status, took, detail := readOnce(srv, key, r.path)
			if ctx.Err() != nil && status == 0 {
				return
			}
			log.add(reader, phase, r.name, r.rng, status, took, detail)
		}
	}
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// readEach times every report n times over each range (round by round, so
// the n reads of one report spread over the drain), recording them under
// reader and phase.
func readEach(srv *llmcost, key, reader, phase string, n int, log *readLog) {
	for range n {
		for _, r := range reportReads() {
			log.mu.Lock()
			skip := log.notFound[r.name]
			log.mu.Unlock()
			if !skip {
				status, took, detail := readOnce(srv, key, r.path)
				log.add(reader, phase, r.name, r.rng, status, took, detail)
			}
		}
	}
}

// budgetPollers is how many clients poll project A's budget state, each
// once a second (test/e2e's BenchmarkBudgetStatePollers, shape every_1s).
const budgetPollers = 50

// pollBudget runs the budget-state pollers until ctx ends, their starts
// spread evenly over the second, each on a kept-alive connection, and
// records every poll under reader "budget-state" in the phase phase()
// answers at the time.
func pollBudget(ctx context.Context, srv *llmcost, projectID, key string, phase *atomic.Value, log *readLog) {
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: budgetPollers}}
	defer hc.CloseIdleConnections()
	url := srv.URL + "/v1/projects/" + projectID + "/budget-state"
	var wg sync.WaitGroup
	start := time.Now()
	for i := range budgetPollers {
		wg.Go(func() {
			for tick := start.Add(time.Second * time.Duration(i) / budgetPollers); ; tick = tick.Add(time.Second) {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Until(tick)):
				}
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				t0 := time.Now()
				status, app := 0, time.Duration(-1)
				if resp, err := hc.Do(req); err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil {
						status, app = resp.StatusCode, serverTime(resp.Header.Get("Server-Timing"))
					}
				}
				p := phase.Load().(string)
				log.add("budget-state", p, "budget-state", "", status, time.Since(t0), "")
				if status == http.StatusOK && app >= 0 {
					log.addTook(readKey{"budget-state", p, budgetInLlmcost, ""}, app)
				}
			}
		})
	}
	wg.Wait()
}

// budgetInLlmcost names the series of llmcost's own time per budget-state
// poll, from its Server-Timing header.
const budgetInLlmcost = "in llmcost"

// serverTime is the app duration of a Server-Timing header ("app;dur=" in
// milliseconds), or -1 when there is none (a build that does not set it).
func serverTime(h string) time.Duration {
	v, ok := strings.CutPrefix(h, "app;dur=")
	if !ok {
		return -1
	}
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return -1
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// addTook records a duration under k without counting a request (a
// second measure of a request already counted, or a probe's).
func (l *readLog) addTook(k readKey, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.took[k] = append(l.took[k], d)
}

// wakeProbe names the series of the wake-up probe.
const wakeProbe = "a 1 ms sleep's overshoot"

// probeWakeups sleeps 1 ms over and over until ctx ends and records by how
// much each sleep overshot, under reader "budget-state" in the phase
// phase() answers at the time. It is what any process on the machine
// waits for a core when it wakes (a poller for its answer, llmcost for
// the poll): a floor under every latency the benchmark measures, which
// no change to llmcost can lower.
func probeWakeups(ctx context.Context, phase *atomic.Value, log *readLog) {
	for ctx.Err() == nil {
		t0 := time.Now()
		time.Sleep(time.Millisecond)
		log.addTook(readKey{"budget-state", phase.Load().(string), wakeProbe, ""}, max(0, time.Since(t0)-time.Millisecond))
	}
}
