package otlpconv

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestBoundsRejectTheRecordAlone: a Claude Code record with a count or a
// cost beyond llmcost's per-call bounds is rejected with the bound named;
// the good record beside it converts. An absurd duration is dropped (it is
// informational), not the call.
func TestBoundsRejectTheRecordAlone(t *testing.T) {
	for _, c := range []struct {
		name, want string
		set        func(a pcommon.Map)
	}{
		{"input 2^53-1", "bound of 1000000000", func(a pcommon.Map) { a.PutInt("input_tokens", 1<<53-1) }},
		{"output as a string", "bound of 1000000000", func(a pcommon.Map) { a.PutStr("output_tokens", "1000000001") }},
		{"three counts summing beyond the bound", "input_tokens=2100000000", func(a pcommon.Map) {
			a.PutInt("input_tokens", 700_000_000)
			a.PutInt("cache_read_tokens", 700_000_000)
			a.PutInt("cache_creation_tokens", 700_000_000)
		}},
		{"cost 1e7 USD", "bound of 1000000 USD", func(a pcommon.Map) { a.PutDouble("cost_usd", 1e7) }},
		{"cost beyond int64", "bound of 1000000 USD", func(a pcommon.Map) { a.PutStr("cost_usd", "1e100") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ld, add := batch("claude-code", claudeScope)
			for i, bad := range []bool{false, true} {
				a := apiRequest(add)
				a.PutInt("event.sequence", int64(i))
				a.PutInt("duration_ms", 1<<53)
				if bad {
					c.set(a)
				}
			}
			res := Convert(ld, testNow)
			if len(res.Events) != 1 || len(res.Rejected) != 1 {
				t.Fatalf("want one event and one rejection, got %+v", res)
			}
			if r := res.Rejected[0]; !strings.Contains(r.Reason, c.want) || !strings.HasSuffix(r.Path, "logRecords[1]") {
				t.Errorf("rejection %+v, want %q", r, c.want)
			}
			if res.Events[0].Event.LatencyMS != nil {
				t.Errorf("a 2^53 ms duration must be dropped, got %d", *res.Events[0].Event.LatencyMS)
			}
		})
	}
}
