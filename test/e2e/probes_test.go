package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The findings of the hardening probes, re-run against the built binary.
func TestProbesFindNothing(t *testing.T) {
	s := start(t, map[string]string{"LLMCOST_LOG_LEVEL": "debug"})
	_, _, key := s.account(t)

	t.Run("one surrogate-bearing event is rejected alone", func(t *testing.T) {
		body := `{"events":[` +
			`{"event_id":"p-1","agent_name":"a","model":"gpt-4o","input_tokens":1,"output_tokens":1,"timestamp":"2026-11-22T10:00:00Z"},` +
			`{"event_id":"p-2","agent_name":"a","model":"gpt-4o","input_tokens":1,"output_tokens":1,"timestamp":"2026-11-22T10:00:00Z","metadata":{"k":"\ud800"}},` +
			`{"event_id":"p-3\udc00","agent_name":"a","model":"gpt-4o","input_tokens":1,"output_tokens":1,"timestamp":"2026-11-22T10:00:00Z"},` +
			`{"event_id":"p-4","agent_name":"a","model":"gpt-4o","input_tokens":1,"output_tokens":1,"timestamp":"2026-11-22T10:00:00Z"}]}`
		before := strings.Count(s.stderr.String(), "\n")
		r := s.call(t, "POST", "/v1/events/batch", key, body).must(t, http.StatusOK)
		rej, _ := r.Body["rejected"].([]any)
		if r.Body["status"] != "partial" || num(t, r.Body["events_stored"]) != 2 || len(rej) != 2 {
			t.Fatalf("%s", r.Raw)
		}
		for i, want := range []string{"metadata", "event_id"} {
			got := rej[i].(map[string]any)
			if got["field"] != want || num(t, got["index"]) != float64(i+1) {
				t.Errorf("rejection %d: %v, want field %s", i, got, want)
			}
		}
		// The log line reaches the captured stderr through a pipe: wait for
		// it (bounded) before judging what was logged.
		var logged string
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			logged = s.stderr.String()[len(strings.Join(strings.SplitAfter(s.stderr.String(), "\n")[:before], "")):]
			if strings.Contains(logged, "batch events rejected") || time.Now().After(deadline) {
				break
			}
		}
		if n := strings.Count(logged, "batch events rejected"); n != 1 || strings.Contains(logged, "stacktrace") ||
			strings.Contains(logged, "\terror\t") {
			t.Errorf("want one debug line and no error or stack trace, got:\n%s", logged)
		}
	})

	t.Run("mistakes are answered where made", func(t *testing.T) {
		typo := `{"events":[{"event_id":"m-1","agent_name":"a","model":"claude-sonet-4-5","input_tokens":10,"output_tokens":1,"timestamp":"2026-11-22T10:00:00Z"},` +
			`{"agent_name":"a","model":"gpt-4o","input_token":10,"output_tokens":1,"timestamp":"2026-11-22T10:00:00Z"}]}`
		r := s.call(t, "POST", "/v1/events/batch", key, typo).must(t, http.StatusOK)
		warn, _ := r.Body["warnings"].([]any)
		if num(t, r.Body["events_stored"]) != 1 || len(warn) != 1 ||
			!strings.Contains(string(r.Raw), `"suggestions":["claude-sonnet-4-5"`) {
			t.Errorf("unknown model: %s", r.Raw)
		}
		if rej := r.Body["rejected"].([]any); len(rej) != 1 || rej[0].(map[string]any)["field"] != "input_token" {
			t.Errorf("typo: %s", r.Raw)
		}
		arr := s.call(t, "POST", "/v1/events/batch", key, `[{"events":[]}]`).must(t, http.StatusUnprocessableEntity)
		if !strings.Contains(string(arr.Raw), "must be a JSON object") {
			t.Errorf("array body: %s", arr.Raw)
		}
		bad := s.call(t, "GET", "/v1/events", "sk_llmc_"+strings.Repeat("0", 40), nil).must(t, http.StatusUnauthorized)
		if bad.Body["detail"] != "Invalid API key" || bad.Body["error"].(map[string]any)["code"] != "unauthorized" {
			t.Errorf("invalid key: %s", bad.Raw)
		}
	})

	t.Run("headers", func(t *testing.T) {
		token, _, _ := s.account(t)
		for _, r := range []response{
			s.call(t, "GET", "/v1/health", "", nil),
			s.call(t, "GET", "/v1/auth/me", token, nil),
			s.call(t, "GET", "/v1/no/such/route", "", nil),
		} {
			h := r.Header
			if h.Get("Content-Type") != "application/json; charset=utf-8" || h.Get("X-Content-Type-Options") != "nosniff" ||
				h.Get("Cache-Control") != "no-store" {
				t.Errorf("headers %v", h)
			}
		}
		for _, path := range []string{"/v1/health", "/v1/pricing/gpt-4o"} {
			r := s.call(t, "HEAD", path, "", nil)
			if r.Status != http.StatusOK || len(r.Raw) != 0 {
				t.Errorf("HEAD %s: %d %q", path, r.Status, r.Raw)
			}
		}
		if r := s.call(t, "HEAD", "/v1/auth/me", token, nil); r.Status != http.StatusOK {
			t.Errorf("HEAD /v1/auth/me: %d", r.Status)
		}
	})

	t.Run("Claude Code calls have streaming unknown", func(t *testing.T) {
		_, _, k := s.account(t)
		s.postOTLP(t, "/v1/otlp/v1/logs", k, readOTLPFixture(t, "claude_code_session.json"), jsonType).must(t, http.StatusOK)
		events := s.listed(t, k)
		if len(events) == 0 {
			t.Fatal("nothing stored")
		}
		for id, e := range events {
			if v, ok := e["streaming"]; !ok || v != nil {
				t.Errorf("event %s: streaming %v, want null", id, v)
			}
		}
	})
}
