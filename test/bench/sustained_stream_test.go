package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
)

// chunk is one batch's calls and the outcomes of the runs whose last call
// it carries (a run declares its outcome after its last call, as the bulk
// loader's outcomes are recorded a second after it).
type chunk struct {
	events   []event.Event
	outcomes []benchdata.Outcome
}

// streamStats counts what a stream sent and what the server pushed back.
type streamStats struct {
	acked     atomic.Int64 // calls in acknowledged batches
	outcomes  atomic.Int64 // outcomes in acknowledged batches
	batches   atomic.Int64
	retries   atomic.Int64 // 503 answers, each followed by a resend
	retryWait atomic.Int64 // nanoseconds slept on Retry-After
	lastAck   atomic.Int64 // UnixNano of the last acknowledgement
}

// chunks generates the spec's days oldest first (ten million calls are
// never held at once, only the day being sent and the next) and cuts them
// into batches of ingestBatch calls, carrying a day's remainder into the
// next batch, until ctx ends. The next day is generated while this one is
// sent: generating one takes about a second, a stall the clients would
// otherwise wait out every day.
func chunks(ctx context.Context, spec benchdata.Spec, projectID string, anchor time.Time) <-chan chunk {
	days := make(chan benchdata.Day, 1)
	go func() {
		defer close(days)
		for d := range spec.Days {
			select {
			case days <- benchdata.Generate(spec, pricing.Builtin(), projectID, anchor, d):
			case <-ctx.Done():
				return
			}
		}
	}()
	out := make(chan chunk, 4)
	go func() {
		// Drain the generator when stopping early, so it ends too.
		defer func() {
			for range days {
			}
		}()
		defer close(out)
		var cur chunk
		emit := func() bool {
			select {
			case out <- cur:
				cur = chunk{}
				return true
			case <-ctx.Done():
				return false
			}
		}
		for day := range days {
			last := map[string]int{} // trace → index of its last call
			for i, ev := range day.Events {
				last[ev.TraceID] = i
			}
			outcomesAt := map[int][]benchdata.Outcome{}
			for _, o := range day.Outcomes {
				outcomesAt[last[o.TraceID]] = append(outcomesAt[last[o.TraceID]], o)
			}
			for i, ev := range day.Events {
				cur.events = append(cur.events, ev)
				cur.outcomes = append(cur.outcomes, outcomesAt[i]...)
				if len(cur.events) == ingestBatch && !emit() {
					return
				}
			}
		}
		if len(cur.events) > 0 {
			emit()
		}
	}()
	return out
}

// stream sends the spec's calls to /v1/events/batch from clients
// concurrent clients, as fast as the server acknowledges them, or at rate
// calls a second when rate > 0 (batches spaced evenly; a batch that could
// not be sent on time goes at once, without catching up). A 503 is
// back-pressure: the client sleeps its Retry-After (1 s when absent) and
// sends the same batch again. Any other answer but 200 stops the stream
// and is returned.
func stream(srv *llmcost, key string, spec benchdata.Spec, projectID string, anchor time.Time, clients int, rate float64,
	st *streamStats) error {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	work := chunks(ctx, spec, projectID, anchor)
	pace := pacer(rate)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for c := range work {
				pace(len(c.events))
				body, err := benchdata.BatchBody(c.events, c.outcomes)
				if err == nil {
					err = sendBatch(ctx, srv, key, body, st)
				}
				if err != nil {
					cancel(err)
					return
				}
				st.acked.Add(int64(len(c.events)))
				st.outcomes.Add(int64(len(c.outcomes)))
				st.batches.Add(1)
				st.lastAck.Store(time.Now().UnixNano())
			}
		})
	}
	wg.Wait()
	// Drain what the generator may still hold after a failure.
	for range work {
	}
	return context.Cause(ctx)
}

// sendBatch posts one batch until it is acknowledged, honouring 503's
// Retry-After.
func sendBatch(ctx context.Context, srv *llmcost, key string, body []byte, st *streamStats) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/events/batch", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := srv.client.Do(req)
		if err != nil {
			return fmt.Errorf("batch: %w", err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			return fmt.Errorf("batch: reading the answer: %w", err)
		case resp.StatusCode == http.StatusOK:
			return nil
		case resp.StatusCode != http.StatusServiceUnavailable:
			return fmt.Errorf("batch: %d %.300s", resp.StatusCode, raw)
		}
		wait := retryAfter(resp.Header.Get("Retry-After"))
		st.retries.Add(1)
		st.retryWait.Add(int64(wait))
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(wait):
		}
	}
}

// retryAfter reads a Retry-After header's delay in seconds (fractions
// accepted, should the server send them), 1 s when absent or unreadable.
func retryAfter(h string) time.Duration {
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	return time.Second
}

// pacer answers a function that waits until a batch of n calls may be
// sent at rate calls a second (rate ≤ 0: never waits). Each batch takes
// the next slot after the previous one's; a slot already past (the client
// was busy) is not made up for later.
func pacer(rate float64) func(n int) {
	if rate <= 0 {
		return func(int) {}
	}
	var mu sync.Mutex
	next := time.Now()
	return func(n int) {
		mu.Lock()
		at := later(next, time.Now())
		next = at.Add(time.Duration(float64(n) / rate * float64(time.Second)))
		mu.Unlock()
		time.Sleep(time.Until(at))
	}
}
