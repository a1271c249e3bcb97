package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

// priceSource is a real HTTP server standing in for LiteLLM's file; the
// test switches what it answers.
type priceSource struct {
	mu    sync.Mutex
	body  []byte
	code  int
	delay time.Duration
	srv   *httptest.Server
}

func newPriceSource(t *testing.T, body []byte) *priceSource {
	p := &priceSource{body: body, code: http.StatusOK}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		body, code, delay := p.body, p.code, p.delay
		p.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.WriteHeader(code)
		_, _ = w.Write(body)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *priceSource) set(body []byte, code int, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.body, p.code, p.delay = body, code, delay
}

// waitStatus polls the sync status until ok accepts it.
func (s *service) waitStatus(t *testing.T, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := s.call(t, "GET", "/v1/pricing/sync/status", "", nil).must(t, http.StatusOK)
		if ok(st.Body) {
			return st.Body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: sync status never got there: %s", what, st.Raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSyncKeepsTheLastGoodCatalogueAndSaysWhy(t *testing.T) {
	src := newPriceSource(t, pricingFixture(t))
	s := start(t, map[string]string{"LLMCOST_PRICING_SYNC_URL": src.srv.URL + "/prices.json",
		"LLMCOST_PRICING_SYNC_INTERVAL": "1s", "LLMCOST_PRICING_SYNC_TIMEOUT": "500ms"})
	good := s.waitStatus(t, "first sync", func(st map[string]any) bool { return st["mode"] == "network" })
	if good["last_error"] != nil || good["last_success_at"] == nil || good["next_sync_at"] == nil ||
		good["source_url"] != src.srv.URL+"/prices.json" || len(good["changed_models"].([]any)) == 0 {
		t.Fatalf("after a good sync: %v", good)
	}
	if e := s.call(t, "GET", "/v1/pricing/gpt-4o-mini-2024-07-18", "", nil).must(t, http.StatusOK); e.Body["source"] != "litellm" {
		t.Fatalf("a synced model: %s", e.Raw)
	}
	version := good["version"]
	var ten []string
	for _, m := range textModels(t)[:10] {
		ten = append(ten, strconv.Quote(m)+`: {"mode": "chat", "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}`)
	}
	tenModels := []byte("{" + strings.Join(ten, ",") + "}")
	for _, c := range []struct {
		name  string
		body  []byte
		code  int
		delay time.Duration
		why   string
	}{
		{"server error", []byte("down for maintenance"), http.StatusServiceUnavailable, 0, "HTTP 503"},
		{"slow", pricingFixture(t), http.StatusOK, 3 * time.Second, "timeout"},
		{"garbage", []byte("<html>garbage</html>"), http.StatusOK, 0, "not valid JSON"},
		{"mass drop", tenModels, http.StatusOK, 0, "more than half"},
	} {
		src.set(c.body, c.code, c.delay)
		st := s.waitStatus(t, c.name, func(st map[string]any) bool {
			e, _ := st["last_error"].(string)
			return strings.Contains(e, c.why)
		})
		if st["version"] != version || st["mode"] != "network" || st["last_success_at"] == nil {
			t.Errorf("%s: the catalogue in force changed: %v", c.name, st)
		}
		if v := s.call(t, "GET", "/v1/pricing", "", nil).must(t, http.StatusOK).Body["version"]; v != version {
			t.Errorf("%s: /v1/pricing serves %v, want %v", c.name, v, version)
		}
	}
	// Back to normal: the next sync clears the error.
	src.set(pricingFixture(t), http.StatusOK, 0)
	s.waitStatus(t, "recovery", func(st map[string]any) bool { return st["last_error"] == nil })
}

// A source that cannot be reached neither delays nor fails start.
func TestUnreachableSourceLeavesTheBuiltinPrices(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/prices.json"
	l.Close()
	s := start(t, map[string]string{"LLMCOST_PRICING_SYNC_URL": closed})
	st := s.waitStatus(t, "failed sync", func(st map[string]any) bool { return st["last_error"] != nil })
	if st["mode"] != "embedded" || st["last_success_at"] != nil || !strings.Contains(st["last_error"].(string), "refused") {
		t.Fatalf("status: %v", st)
	}
	s.call(t, "POST", "/v1/estimate", "", map[string]any{"model": "gpt-5", "input_tokens": 10, "output_tokens": 1}).
		must(t, http.StatusOK)
}

// The mirror: the same binary and configuration with LLMCOST_MODE=mirror,
// no database URL and a data directory that does not exist.
func TestMirrorServesPublicPricingWithoutADatabase(t *testing.T) {
	src := newPriceSource(t, pricingFixture(t))
	dataDir := filepath.Join(t.TempDir(), "never-created")
	s := start(t, map[string]string{"LLMCOST_MODE": "mirror", "LLMCOST_DATA_DIR": dataDir,
		"LLMCOST_PRICING_SYNC_URL": src.srv.URL})
	if h := s.call(t, "GET", "/v1/health", "", nil).must(t, http.StatusOK); h.Body["status"] != "ok" {
		t.Fatalf("health: %s", h.Raw)
	}
	s.call(t, "GET", "/v1/pricing", "", nil).must(t, http.StatusOK)
	s.call(t, "GET", "/v1/pricing/anthropic%2Fclaude-sonnet-4-5", "", nil).must(t, http.StatusOK)
	s.call(t, "GET", "/v1/pricing/deprecations", "", nil).must(t, http.StatusOK)
	r := s.call(t, "POST", "/v1/estimate", "", map[string]any{"model": "claude-sonnet-4-5", "input_tokens": 19745,
		"output_tokens": 958, "cached_tokens": 18452, "cache_write_tokens": 1287}).must(t, http.StatusOK)
	if fmt.Sprint(r.Body["total_cost"]) != "0.02474985" {
		t.Errorf("estimate on the mirror: %s", r.Raw)
	}
	// The mirror still syncs from the network, in memory.
	s.waitStatus(t, "mirror sync", func(st map[string]any) bool { return st["mode"] == "network" })
	for _, c := range []struct{ method, path string }{
		{"POST", "/v1/auth/register"}, {"POST", "/v1/auth/login"}, {"POST", "/v1/events/batch"},
		{"GET", "/v1/events"}, {"POST", "/v1/otlp/v1/logs"}, {"POST", "/v1/pricing/import"},
		{"POST", "/v1/pricing/reprice"}, {"POST", "/v1/projects"}, {"GET", "/v1/projects/me"},
		{"GET", "/v1/pricing/versions/" + pricing.Builtin().Version()}, {"GET", "/v1/auth/policies/current"},
	} {
		if r := s.call(t, c.method, c.path, "sk_llmc_whatever", "{}"); r.Status != http.StatusNotFound {
			t.Errorf("%s %s on the mirror: %d %s", c.method, c.path, r.Status, r.Raw)
		}
	}
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Errorf("the mirror created %s (%v)", dataDir, err)
	}
	if kids := childProcesses(t, s.cmd.Process.Pid); len(kids) > 0 {
		t.Errorf("the mirror started processes: %v", kids)
	}
}

// childProcesses lists the commands of pid's children, from /proc.
func childProcesses(t *testing.T, pid int) []string {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	if len(stats) == 0 {
		t.Fatal("no /proc to look for child processes in")
	}
	var out []string
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces, so cut at ')'.
		i := strings.LastIndexByte(string(b), ')')
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, string(b[:i+1]))
		}
	}
	return out
}
