package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

// shutdownLoad is what the clients of TestSIGTERMLosesNothing saw.
type shutdownLoad struct {
	mu       sync.Mutex
	statuses map[int]int
	connErrs int
	acked    []string // event ids of batches answered 200
}

func (l *shutdownLoad) record(status int, ids []string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.connErrs++
		return
	}
	l.statuses[status]++
	if status == http.StatusOK {
		l.acked = append(l.acked, ids...)
	}
}

// post sends one two-event batch; err is a connection-level failure.
func post(c *http.Client, url, key string, ids []string) (int, error) {
	events := make([]any, len(ids))
	for i, id := range ids {
		events[i] = ev(id, "gpt-4o", 100, 10, nil)
	}
	raw, _ := json.Marshal(map[string]any{"events": events})
	req, _ := http.NewRequestWithContext(context.Background(), "POST", url+"/v1/events/batch", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return resp.StatusCode, err
}

// 20 clients post while the process gets SIGTERM: no 404 (a client drops a
// 404 batch for good), every batch acknowledged with 200 is stored, every
// other answer is a 503 or a connection error.
func TestSIGTERMLosesNothing(t *testing.T) {
	s := start(t, nil)
	_, projectID, key := s.account(t)
	load := &shutdownLoad{statuses: map[int]int{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := &http.Client{Timeout: 30 * time.Second}
			for n := 0; ; n++ {
				ids := []string{fmt.Sprintf("c%d-%d-a", c, n), fmt.Sprintf("c%d-%d-b", c, n)}
				status, err := post(hc, s.URL, key, ids)
				load.record(status, ids, err)
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, s.stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("llmcost did not stop within 60s")
	}
	close(stop)
	wg.Wait()

	load.mu.Lock()
	defer load.mu.Unlock()
	t.Logf("answers %v, connection errors %d, events acknowledged %d", load.statuses, load.connErrs, len(load.acked))
	for status, n := range load.statuses {
		if status != http.StatusOK && status != http.StatusServiceUnavailable {
			t.Errorf("%d answers with status %d during shutdown", n, status)
		}
	}
	if load.statuses[http.StatusServiceUnavailable] == 0 && load.connErrs == 0 {
		t.Error("no request saw the shutdown: the test did not test it")
	}
	ctx := context.Background()
	db, err := postgres.Open(ctx, s.dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored, _, err := db.ListEvents(ctx, postgres.EventFilter{ProjectID: projectID, Limit: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range stored {
		have[e.EventID] = true
	}
	for _, id := range load.acked {
		if !have[id] {
			t.Errorf("event %s was acknowledged with 200 and is not stored", id)
		}
	}
}
