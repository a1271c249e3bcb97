package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

func TestDatabaseOutageAnswers503AndResendStoresOnce(t *testing.T) {
	s := start(t, nil)
	_, _, key := s.account(t)
	body := map[string]any{"events": []any{ev("o1", "gpt-4o", 10, 1, nil), ev("o2", "gpt-4o", 10, 1, nil)}}

	pgtest.StopServer(t)
	restarted := false
	defer func() {
		if !restarted {
			pgtest.StartServer(t)
		}
	}()
	r := s.call(t, "POST", "/v1/events/batch", key, body)
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Fatalf("during the outage: status %d Retry-After %q: %s", r.Status, r.Header.Get("Retry-After"), r.Raw)
	}
	if h := s.call(t, "GET", "/v1/health", "", nil); h.Status != http.StatusServiceUnavailable || h.Body["status"] == "ok" {
		t.Fatalf("health during the outage: %d %s", h.Status, h.Raw)
	}
	pgtest.StartServer(t)
	restarted = true

	var stored float64
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = s.call(t, "POST", "/v1/events/batch", key, body)
		if r.Status == http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	r.must(t, http.StatusOK)
	stored = num(t, r.Body["events_stored"])
	again := s.call(t, "POST", "/v1/events/batch", key, body).must(t, http.StatusOK)
	if stored != 2 || num(t, again.Body["events_duplicate"]) != 2 || len(s.listed(t, key)) != 2 {
		t.Fatalf("after the outage: stored %v, resend %s", stored, again.Raw)
	}
}

func TestRateLimitHeadersAndQuota(t *testing.T) {
	s := start(t, map[string]string{"LLMCOST_RATE_LIMIT": "100"})
	// A fresh client IP's budget is partly spent by start's health polling,
	// so read the remaining quota and check the headers agree with it.
	r := s.call(t, "GET", "/v1/health", "", nil).must(t, http.StatusOK)
	remaining, err := strconv.Atoi(r.Header.Get("RateLimit-Remaining"))
	if err != nil || remaining < 50 || remaining > 99 {
		t.Fatalf("RateLimit-Remaining %q", r.Header.Get("RateLimit-Remaining"))
	}
	want := map[string]string{
		"RateLimit-Policy": `"default";q=100;w=60`, "RateLimit-Limit": "100",
		"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": strconv.Itoa(remaining),
	}
	for h, v := range want {
		if got := r.Header.Get(h); got != v {
			t.Errorf("%s: %q, want %q", h, got, v)
		}
	}
	if !strings.HasPrefix(r.Header.Get("RateLimit"), fmt.Sprintf(`"default";r=%d;t=`, remaining)) {
		t.Errorf("RateLimit: %q", r.Header.Get("RateLimit"))
	}
	if reset, err := strconv.Atoi(r.Header.Get("RateLimit-Reset")); err != nil || reset < 1 || reset > 60 {
		t.Errorf("RateLimit-Reset: %q", r.Header.Get("RateLimit-Reset"))
	}
	for i := 0; i < remaining; i++ {
		s.call(t, "GET", "/v1/health", "", nil).must(t, http.StatusOK)
	}
	r = s.call(t, "GET", "/v1/health", "", nil).must(t, http.StatusTooManyRequests)
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retry < 1 || r.Body["retry_after"] == nil || r.Body["detail"] == nil ||
		r.Header.Get("RateLimit-Remaining") != "0" || r.Body["limit"] == nil || r.Body["period"] == nil {
		t.Fatalf("429: Retry-After %q body %s", r.Header.Get("Retry-After"), r.Raw)
	}
}

// listeningSockets counts the TCP sockets pid listens on, from /proc.
func listeningSockets(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	n := 0
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && inodes[f[9]] {
				n++
			}
		}
	}
	return n
}

func TestExactlyOnePortIsOpened(t *testing.T) {
	s := start(t, nil)
	if n := listeningSockets(t, s.cmd.Process.Pid); n != 1 {
		t.Fatalf("llmcost listens on %d TCP sockets, want 1", n)
	}
}

// TestPrivateDatabaseKeepsDataAcrossRestarts is `make run` on a fresh
// machine: no database URL, so llmcost runs its own PostgreSQL.
func TestPrivateDatabaseKeepsDataAcrossRestarts(t *testing.T) {
	dir := privateDataDir(t)
	env := map[string]string{"LLMCOST_DATA_DIR": dir}
	s := start(t, env)
	_, _, key := s.account(t)
	s.call(t, "POST", "/v1/events/batch", key, map[string]any{"events": []any{ev("keep", "gpt-4o", 1, 1, nil)}}).must(t, http.StatusOK)
	if strings.Contains(s.stderr.String(), `"migrations_applied": 0`) || !strings.Contains(s.stderr.String(), `"migrations_applied": `) {
		t.Errorf("first start did not apply the migrations:\n%s", s.stderr.String())
	}
	s.stop(t)

	s2 := start(t, env)
	if _, ok := s2.listed(t, key)["keep"]; !ok {
		t.Fatal("the event did not survive a restart")
	}
	if !strings.Contains(s2.stderr.String(), `"migrations_applied": 0`) {
		t.Errorf("second start applied migrations again:\n%s", s2.stderr.String())
	}
}

// privateDataDir is a data directory the private server's unprivileged
// account can reach when the tests run as root (t.TempDir() is 0700).
func privateDataDir(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp("", "llmcost-e2e-data")
	if err != nil || os.Chmod(parent, 0o711) != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	return filepath.Join(parent, "data")
}

// A crash of the private PostgreSQL (here: SIGKILL of the postmaster) is
// survived: llmcost restarts it on the same data, and ingest resumes.
func TestPrivateDatabaseIsRestartedAfterACrash(t *testing.T) {
	dir := privateDataDir(t)
	s := start(t, map[string]string{"LLMCOST_DATA_DIR": dir})
	_, _, key := s.account(t)
	s.call(t, "POST", "/v1/events/batch", key, map[string]any{"events": []any{ev("before", "gpt-4o", 1, 1, nil)}}).must(t, http.StatusOK)

	raw, err := os.ReadFile(filepath.Join(dir, "pgdata", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(raw), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Orphaned backends may serve a request or two before they notice the
	// postmaster is gone, so wait for the restart itself.
	deadline := time.Now().Add(45 * time.Second)
	for !strings.Contains(s.stderr.String(), "the private PostgreSQL is back") {
		if time.Now().After(deadline) {
			t.Fatalf("no restart within 45 s:\n%s", s.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.call(t, "POST", "/v1/events/batch", key, map[string]any{"events": []any{ev("after", "gpt-4o", 1, 1, nil)}}).must(t, http.StatusOK)
	got := s.listed(t, key)
	if got["before"] == nil || got["after"] == nil {
		t.Fatalf("events after the restart: %v", got)
	}
}
