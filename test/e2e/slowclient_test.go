package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// trickle opens a connection, sends head at once, then one byte of rest a
// second, and returns how long the server kept the connection open.
func trickle(t *testing.T, addr, head, rest string) time.Duration {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		_, _ = io.Copy(io.Discard, conn) // returns at EOF: the server closed
	}()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Error(err)
		return 0
	}
	for i := 0; i < len(rest); i++ {
		select {
		case <-closed:
			return time.Since(start)
		case <-time.After(time.Second):
		}
		if _, err := conn.Write([]byte{rest[i]}); err != nil {
			break
		}
	}
	<-closed
	return time.Since(start)
}

// Ten clients sending a batch body a byte a second, and one sending its
// headers that way, are cut off within the configured timeouts, while
// /v1/health keeps answering at once.
func TestSlowClientsAreCutOff(t *testing.T) {
	const headerTimeout, readTimeout = 2 * time.Second, 3 * time.Second
	s := start(t, map[string]string{
		"LLMCOST_HTTP_READ_HEADER_TIMEOUT": headerTimeout.String(),
		"LLMCOST_HTTP_READ_TIMEOUT":        readTimeout.String(),
	})
	_, _, key := s.account(t)
	addr := strings.TrimPrefix(s.URL, "http://")
	body := `{"events":[` + strings.Repeat(" ", 200) + `]}`
	head := fmt.Sprintf("POST /v1/events/batch HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, key, len(body))

	var wg sync.WaitGroup
	held := make([]time.Duration, 11)
	for i := range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); held[i] = trickle(t, addr, head, body) }()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		held[10] = trickle(t, addr, "", "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: "+strings.Repeat("a", 100)+"\r\n\r\n")
	}()

	stop := make(chan struct{})
	var slowest time.Duration
	var probes int
	healthDone := make(chan struct{})
	go func() {
		defer close(healthDone)
		hc := &http.Client{Timeout: 5 * time.Second}
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			t0 := time.Now()
			resp, err := hc.Get(s.URL + "/v1/health")
			if err != nil {
				t.Errorf("health during the slow clients: %v", err)
				return
			}
			resp.Body.Close()
			slowest, probes = max(slowest, time.Since(t0)), probes+1
		}
	}()
	wg.Wait()
	close(stop)
	<-healthDone

	for i, d := range held {
		limit := readTimeout
		if i == 10 {
			limit = headerTimeout
		}
		// A second of slack: the byte-a-second writer notices on its next tick.
		if d < limit-500*time.Millisecond || d > limit+1500*time.Millisecond {
			t.Errorf("connection %d held %s, want about %s", i, d.Round(time.Millisecond), limit)
		}
	}
	t.Logf("held %v; %d health probes, slowest %s", held, probes, slowest.Round(time.Millisecond))
	if probes < 10 || slowest > 500*time.Millisecond {
		t.Errorf("health slowed down: %d probes, slowest %s", probes, slowest)
	}
}
