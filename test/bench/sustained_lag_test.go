package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/timings"
)

// mergerNames are the asynchronous mergers whose lag is sampled, in the
// order they are printed.
var mergerNames = []string{"rollups", "runs", "alerts"}

// mergerLag is one merger's state at one sample: how many rows wait for it
// and how long the oldest has waited.
type mergerLag struct {
	Backlog    int64   `json:"backlog"`
	LagSeconds float64 `json:"lag_seconds"`
}

// lagSample is one reading of every merger, taken at elapsed since the
// stream started, with the calls acknowledged by then.
type lagSample struct {
	elapsed time.Duration
	acked   int64
	mergers map[string]mergerLag
}

// healthMergers reads the optional mergers object of GET /v1/health:
// {"mergers": {"rollups": {"backlog": n, "lag_seconds": s}, "runs": …,
// "alerts": …}}. ok is false when the build does not report it (the bench
// then counts the backlog by SQL) or health did not answer 200; status is
// health's status either way, so a 5xx is counted as a failed read.
func healthMergers(srv *llmcost) (m map[string]mergerLag, status int, ok bool) {
	status, raw, err := srv.do("GET", "/v1/health", "", nil)
	if err != nil || status != http.StatusOK {
		return nil, status, false
	}
	var h struct {
		Mergers map[string]mergerLag `json:"mergers"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Mergers) == 0 {
		return nil, status, false
	}
	return h.Mergers, status, true
}

// lagSQL counts each merger's backlog and the age of its oldest row
// (received_at, marked_at and judged_at are set by the ingest transaction):
// the fallback while /v1/health has no mergers object. It counts the whole
// tail, every project's, as the mergers see it.
var lagSQL = map[string]string{
	"rollups": `SELECT count(*), coalesce(extract(epoch FROM now() - min(received_at)), 0)::float8
		FROM events WHERE tx >= (SELECT watermark FROM rollup_state)`,
	"runs":   `SELECT count(*), coalesce(extract(epoch FROM now() - min(marked_at)), 0)::float8 FROM runs_pending`,
	"alerts": `SELECT count(*), coalesce(extract(epoch FROM now() - min(judged_at)), 0)::float8 FROM alerts_pending`,
}

// sqlMergers reads every merger's backlog by SQL on conn.
func sqlMergers(ctx context.Context, conn *pgx.Conn) (map[string]mergerLag, error) {
	out := map[string]mergerLag{}
	for _, name := range mergerNames {
		var m mergerLag
		if err := conn.QueryRow(ctx, lagSQL[name]).Scan(&m.Backlog, &m.LagSeconds); err != nil {
			return nil, err
		}
		out[name] = m
	}
	return out, nil
}

// lagSampler samples the mergers once a second from health, or every
// sqlEvery by SQL when health does not report them, until stopped.
type lagSampler struct {
	mu      sync.Mutex
	samples []lagSample
	source  string // "health" or "sql"
	errs    []string
	stop    context.CancelFunc
	done    chan struct{}
}

// sqlEvery spaces the SQL fallback's samples: counting a tail of millions
// of events takes a while, on the cores being measured.
const sqlEvery = 5 * time.Second

// startLagSampler starts sampling; acked reads the calls acknowledged so
// far, reads counts health's answers as reads.
func startLagSampler(srv *llmcost, dbURL string, start time.Time, acked func() int64, reads *readLog) *lagSampler {
	ctx, cancel := context.WithCancel(context.Background())
	s := &lagSampler{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		var conn *pgx.Conn
		defer func() {
			if conn != nil {
				conn.Close(context.Background())
			}
		}()
		var lastSQL time.Time
		for tick := time.NewTicker(time.Second); ; {
			t0 := time.Now()
			m, status, ok := healthMergers(srv)
			reads.add("health", "-", "health", "", status, time.Since(t0), "")
			source := "health"
			if !ok && time.Since(lastSQL) >= sqlEvery-100*time.Millisecond {
				lastSQL, source = time.Now(), "sql"
				var err error
				if conn == nil {
					conn, err = pgx.Connect(ctx, dbURL)
				}
				if err == nil {
					m, err = sqlMergers(ctx, conn)
				}
				if err != nil && ctx.Err() == nil {
					s.mu.Lock()
					s.errs = append(s.errs, err.Error())
					s.mu.Unlock()
				}
				ok = err == nil
			}
			if ok {
				s.mu.Lock()
				s.source = source
				s.samples = append(s.samples, lagSample{elapsed: time.Since(start), acked: acked(), mergers: m})
				s.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				tick.Stop()
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// finish stops the sampler and returns its samples.
func (s *lagSampler) finish() []lagSample {
	s.stop()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.samples)
}

// lagStat is one merger's worst and 95th-percentile backlog and lag over
// a set of samples.
type lagStat struct {
	n                      int
	maxBacklog, p95Backlog int64
	maxLag, p95Lag         float64
}

// lagStats summarises each merger over the samples taken up to until
// (the whole series when until is 0); a merger absent from every sample
// has n 0.
func lagStats(samples []lagSample, until time.Duration) map[string]lagStat {
	out := map[string]lagStat{}
	for _, name := range mergerNames {
		var backlogs []int64
		var lags []float64
		for _, s := range samples {
			m, ok := s.mergers[name]
			if !ok || (until > 0 && s.elapsed > until) {
				continue
			}
			backlogs, lags = append(backlogs, m.Backlog), append(lags, m.LagSeconds)
		}
		if len(backlogs) == 0 {
			out[name] = lagStat{}
			continue
		}
		slices.Sort(backlogs)
		slices.Sort(lags)
		out[name] = lagStat{n: len(backlogs), maxBacklog: backlogs[len(backlogs)-1], p95Backlog: timings.Percentile(backlogs, 95),
			maxLag: lags[len(lags)-1], p95Lag: timings.Percentile(lags, 95)}
	}
	return out
}

// lagRows thins the series to one sample per step (the last one taken in
// each step, so a row shows the state at its end), for a table that stays
// short over hours.
func lagRows(samples []lagSample, step time.Duration) []lagSample {
	var out []lagSample
	for i, s := range samples {
		last := i == len(samples)-1
		if last || samples[i+1].elapsed/step != s.elapsed/step {
			out = append(out, s)
		}
	}
	return out
}

// lagStep is the lag table's row spacing: a minute over a long run, ten
// seconds over a quick one.
func lagStep(total time.Duration) time.Duration {
	if total >= 10*time.Minute {
		return time.Minute
	}
	return 10 * time.Second
}
