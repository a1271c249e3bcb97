package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
)

// The sustained benchmark's stream runs in a child process (this test
// binary again, TestMain below), apart from the readers and the budget
// pollers it measures. In one Go runtime with two processors, generating a
// day of calls and encoding batches kept both processors busy for up to a
// second at a time, and a poller's goroutine woke into a run queue behind
// them: the tail the benchmark printed was its own scheduler's. In
// production the clients that send calls are other machines; here they are
// at least another process, which the kernel schedules fairly beside the
// others.

// envStreamChild carries a childJob to the child; its presence makes the
// test binary a streamer instead of running tests.
const envStreamChild = "LLMCOST_BENCH_STREAM_CHILD"

// envClientNice is the nice value of the streaming child (default: the
// benchmark's own). The calls' clients are other machines in production;
// at 19 the child takes only the cores nothing on the server side wants,
// so what the readers measure is closer to what a remote client would.
const envClientNice = "LLMCOST_BENCH_CLIENT_NICE"

// childJob is what the child streams.
type childJob struct {
	URL, Key, ProjectID string
	Spec                benchdata.Spec
	Anchor              time.Time
	Clients             int
	// Rate is the calls a second to send at (0: as fast as acknowledged).
	Rate float64
}

// childReport is one line the child writes on its standard output: its
// counters so far, and Done (with Err, if the stream failed) at the end.
type childReport struct {
	Acked, Outcomes, Batches, Retries, RetryWait, LastAck int64
	Done                                                  bool
	Err                                                   string
}

// TestMain runs the child's stream when envStreamChild is set, and the
// package's tests and benchmarks otherwise.
func TestMain(m *testing.M) {
	if raw := os.Getenv(envStreamChild); raw != "" {
		os.Exit(runStreamChild(raw))
	}
	os.Exit(m.Run())
}

// runStreamChild streams the job, reporting its counters every quarter
// second, and answers the exit status.
func runStreamChild(raw string) int {
	var job childJob
	if err := json.Unmarshal([]byte(raw), &job); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", envStreamChild, err)
		return 2
	}
	srv := &llmcost{URL: job.URL, client: &http.Client{Timeout: 5 * time.Minute,
		Transport: &http.Transport{MaxIdleConnsPerHost: job.Clients}}}
	var st streamStats
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	report := func(done bool, err error) {
		r := childReport{Acked: st.acked.Load(), Outcomes: st.outcomes.Load(), Batches: st.batches.Load(),
			Retries: st.retries.Load(), RetryWait: st.retryWait.Load(), LastAck: st.lastAck.Load(), Done: done}
		if err != nil {
			r.Err = err.Error()
		}
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(r)
	}
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				report(false, nil)
			}
		}
	}()
	err := stream(srv, job.Key, job.Spec, job.ProjectID, job.Anchor, job.Clients, job.Rate, &st)
	close(stop)
	report(true, err)
	return 0
}

// streamInChild is stream run by a child process: st follows the child's
// counters as it reports them, and the stream's error comes back as the
// child's.
func streamInChild(srv *llmcost, key string, spec benchdata.Spec, projectID string, anchor time.Time, clients int,
	rate float64, st *streamStats) error {
	raw, err := json.Marshal(childJob{URL: srv.URL, Key: key, Spec: spec, ProjectID: projectID, Anchor: anchor,
		Clients: clients, Rate: rate})
	if err != nil {
		return err
	}
	cmd := exec.Command(os.Args[0])
	if n := os.Getenv(envClientNice); n != "" {
		// Through nice(1): a nice value is a thread's, and every thread
		// of the child must start with it.
		if _, err := strconv.Atoi(n); err != nil {
			return fmt.Errorf("%s=%q: want a nice value", envClientNice, n)
		}
		cmd = exec.Command("nice", "-n", n, os.Args[0])
	}
	cmd.Env = append(os.Environ(), envStreamChild+"="+string(raw))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the streaming child: %w", err)
	}

	var last childReport
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var r childReport
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue // not a report: something the child printed
		}
		st.acked.Store(r.Acked)
		st.outcomes.Store(r.Outcomes)
		st.batches.Store(r.Batches)
		st.retries.Store(r.Retries)
		st.retryWait.Store(r.RetryWait)
		st.lastAck.Store(r.LastAck)
		last = r
	}
	werr := cmd.Wait()
	switch {
	case !last.Done:
		return fmt.Errorf("the streaming child ended without its last report (%v)", werr)
	case last.Err != "":
		return fmt.Errorf("%s", last.Err)
	}
	return werr
}
