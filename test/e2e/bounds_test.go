package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// claudeOTLP is a Claude Code log export of one api_request record per
// input token count given, each with its own request id.
func claudeOTLP(at time.Time, inputs ...string) []byte {
	recs := make([]string, len(inputs))
	for i, in := range inputs {
		recs[i] = fmt.Sprintf(`{"timeUnixNano":"%d","body":{"stringValue":"claude_code.api_request"},"attributes":[
  {"key":"event.name","value":{"stringValue":"api_request"}},{"key":"model","value":{"stringValue":"claude-sonnet-4-5"}},
  {"key":"request_id","value":{"stringValue":"req-bounds-%d"}},{"key":"input_tokens","value":{"intValue":"%s"}},
  {"key":"output_tokens","value":{"intValue":"5"}}]}`, at.UnixNano(), i, in)
	}
	return []byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}}]},
"scopeLogs":[{"scope":{"name":"com.anthropic.claude_code.events"},"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`)
}

// TestOneAbsurdCallDoesNotStopItsProject checks the bounds against the binary:
// a call of 2^53−1 input tokens on gpt-4o, and one with a cost of ten
// billion dollars, are rejected with the field and the bound named, the
// calls beside them are stored, the next metered batch is stored, and the
// reports and the month's spend hold only the good calls. On OTLP the same
// call is a partial success.
func TestOneAbsurdCallDoesNotStopItsProject(t *testing.T) {
	s := start(t, nil)
	_, projectID, key := s.account(t)
	batch := map[string]any{"events": []any{
		ev("good-1", "gpt-4o", 1000, 500, nil),
		ev("absurd", "gpt-4o", 9007199254740991, 0, nil),
		ev("good-2", "gpt-4o", 1000, 500, nil),
		ev("rich", "gpt-4o", 10, 5, map[string]any{"cost": 1e10}),
	}}
	r := s.call(t, "POST", "/v1/events/batch", key, batch).must(t, http.StatusOK)
	if r.Body["status"] != "partial" || num(t, r.Body["events_stored"]) != 2 || num(t, r.Body["events_rejected"]) != 2 {
		t.Fatalf("batch: %s", r.Raw)
	}
	rejected := r.Body["rejected"].([]any)
	for i, want := range []struct{ index, field, bound string }{{"1", "input_tokens", "1000000000"}, {"3", "cost", "1000000"}} {
		rej := rejected[i].(map[string]any)
		if fmt.Sprint(rej["index"]) != want.index || rej["field"] != want.field || !strings.Contains(rej["reason"].(string), want.bound) {
			t.Errorf("rejection %d: %v, want index %s, field %s and the bound %s", i, rej, want.index, want.field, want.bound)
		}
	}
	// The next metered call of the project: stored, not a 500.
	r = s.call(t, "POST", "/v1/events/batch", key, map[string]any{"events": []any{ev("next", "gpt-4o", 1000, 500, nil)}}).
		must(t, http.StatusOK)
	if r.Body["status"] != "ok" || num(t, r.Body["events_stored"]) != 1 {
		t.Fatalf("next batch: %s", r.Raw)
	}
	// 3 × (1000 × $2.50/M + 500 × $10/M) = 3 × $0.0075.
	ov := s.call(t, "GET", "/v1/analytics/overview?range=24h", key, nil).must(t, http.StatusOK)
	if fmt.Sprint(ov.Body["total_cost"]) != "0.0225" || num(t, ov.Body["total_calls"]) != 3 {
		t.Errorf("overview: %s", ov.Raw)
	}
	st := s.call(t, "GET", "/v1/projects/"+projectID+"/budget-state", key, nil).must(t, http.StatusOK)
	if fmt.Sprint(st.Body["spend_mtd"]) != "0.0225" {
		t.Errorf("budget state: %s", st.Raw)
	}

	o := s.postOTLP(t, "/v1/otlp/v1/logs", key, claudeOTLP(time.Now().UTC(), "9007199254740991", "1000"), nil)
	ps, _ := o.Body["partialSuccess"].(map[string]any)
	if o.Status != http.StatusOK || ps == nil || ps["rejectedLogRecords"] != "1" ||
		!strings.Contains(fmt.Sprint(ps["errorMessage"]), "bound of 1000000000") {
		t.Fatalf("OTLP: %d %s", o.Status, o.Raw)
	}
	ov = s.call(t, "GET", "/v1/analytics/overview?range=24h", key, nil).must(t, http.StatusOK)
	if num(t, ov.Body["total_calls"]) != 4 {
		t.Errorf("after OTLP: %s", ov.Raw)
	}
}
