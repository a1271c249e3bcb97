package apiserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/ratelimit"
)

// Whose quota a request spends (security checklist §4, tests 4 and 5): one
// API key is one bucket whichever address it comes from; keys do not share
// buckets; a request with an invalid key is counted against its address,
// never against a valid key; an anonymous client is its peer address, and
// X-Forwarded-For (which any client can send) does not change it.
func TestRateLimitBuckets(t *testing.T) {
	e := newEnv(t)
	a, b := e.register("bucket"), e.register("bucket")
	d := e.deps(e.srv.Logger)
	d.Limiter = ratelimit.New(3, time.Minute)
	h := New(d).Handler()
	call := func(key, from, forwarded string) *httptest.ResponseRecorder {
		t.Helper()
		path := "/v1/events?limit=1"
		if key == "" {
			path = "/v1/health"
		}
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = from + ":40000"
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if forwarded != "" {
			req.Header.Set("X-Forwarded-For", forwarded)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	expect := func(rec *httptest.ResponseRecorder, status int, remaining string, what string) {
		t.Helper()
		if rec.Code != status || rec.Header().Get("RateLimit-Remaining") != remaining {
			t.Fatalf("%s: %d remaining %q, want %d remaining %s: %s", what, rec.Code,
				rec.Header().Get("RateLimit-Remaining"), status, remaining, rec.Body)
		}
	}
	// A bad key (checksum wrong) from a's address: 401, counted on the IP.
	bad := a.Key[:len(a.Key)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(a.Key, "A")]
	expect(call(bad, "192.0.2.1", ""), 401, "2", "invalid key")
	expect(call(a.Key, "192.0.2.1", ""), 200, "2", "key a, first")
	expect(call(a.Key, "198.51.100.7", ""), 200, "1", "key a from another address")
	expect(call(a.Key, "192.0.2.1", ""), 200, "0", "key a, third")
	expect(call(a.Key, "203.0.113.9", ""), 429, "0", "key a, fourth")
	expect(call(b.Key, "192.0.2.1", ""), 200, "2", "key b beside an exhausted a")
	// Anonymous: the peer address decides; X-Forwarded-For is ignored.
	for i, fwd := range []string{"10.0.0.1", "10.0.0.2"} {
		expect(call("", "192.0.2.50", fwd), 200, []string{"2", "1"}[i], "anonymous with X-Forwarded-For "+fwd)
	}
	expect(call("", "192.0.2.1", ""), 200, "1", "anonymous from the address of the invalid key")
	expect(call("", "192.0.2.50", ""), 200, "0", "anonymous, third")
	if rec := call("", "192.0.2.50", "192.0.2.99"); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("anonymous, fourth, with a forged X-Forwarded-For: %d %v", rec.Code, rec.Header())
	}
}
