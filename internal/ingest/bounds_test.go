package ingest

import (
	"strings"
	"testing"
)

// TestDecodeBatchRefusesValuesBeyondTheBounds: each value llmcost cannot
// price or sum safely is refused for its call alone, naming the field and
// the bound; the value at the bound is accepted.
func TestDecodeBatchRefusesValuesBeyondTheBounds(t *testing.T) {
	withTokens := func(field, v string) string {
		ev := evJSON("")
		if field == "input_tokens" || field == "output_tokens" {
			return strings.Replace(ev, `"`+field+`":`+map[string]string{"input_tokens": "10", "output_tokens": "5"}[field], `"`+field+`":`+v, 1)
		}
		return evJSON(`"` + field + `":` + v)
	}
	cases := []struct {
		name, event, field, bound string
	}{
		{"the issue's 2^53-1 input tokens", withTokens("input_tokens", "9007199254740991"), "input_tokens", "1000000000"},
		{"output above 1e9", withTokens("output_tokens", "1000000001"), "output_tokens", "1000000000"},
		{"output as a huge float", withTokens("output_tokens", "1e300"), "output_tokens", "1000000000"},
		{"output beyond float64", withTokens("output_tokens", "1e400"), "output_tokens", "1000000000"},
		{"int64 max", withTokens("reasoning_tokens", "9223372036854775807"), "reasoning_tokens", "1000000000"},
		{"above int64", withTokens("cached_tokens", "92233720368547758070"), "cached_tokens", "1000000000"},
		{"total tokens", withTokens("total_tokens", "2000000001"), "total_tokens", "2000000000"},
		{"latency", withTokens("latency_ms", "1000000001"), "latency_ms", "1000000000"},
		{"cost above 1e6 USD", evJSON(`"cost":1000000.000000001`), "cost", "1000000"},
		{"cost at int64 nano", evJSON(`"cost":9223372036.854775807`), "cost", "1000000"},
		{"cost 1e300", evJSON(`"cost":1e300`), "cost", "1000000"},
	}
	good := evJSON(`"event_id":"good"`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := decode(t, `{"events":[`+good+`,`+c.event+`]}`)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Events) != 1 || b.Events[0].EventID != "good" {
				t.Fatalf("the good call must be kept alone: %+v", b.Events)
			}
			if len(b.Rejections) != 1 {
				t.Fatalf("rejections %+v", b.Rejections)
			}
			r := b.Rejections[0]
			if r.Index != 1 || r.Field != c.field || !strings.Contains(r.Reason, c.bound) {
				t.Errorf("rejection %+v, want index 1, field %s and the bound %s in the reason", r, c.field, c.bound)
			}
		})
	}
	// At the bounds: accepted.
	at := evJSON(`"latency_ms":1000000000,"total_tokens":2000000000,"cost":1000000`)
	at = strings.Replace(strings.Replace(at, `"input_tokens":10`, `"input_tokens":1000000000`, 1), `"output_tokens":5`, `"output_tokens":1e9`, 1)
	b, err := decode(t, `{"events":[`+at+`]}`)
	if err != nil || len(b.Rejections) != 0 || len(b.Events) != 1 {
		t.Fatalf("values at the bounds: err %v rejections %+v", err, b.Rejections)
	}
	if ev := b.Events[0]; ev.InputTokens != 1e9 || ev.OutputTokens != 1e9 || ev.CostNano != 1e15 {
		t.Errorf("values at the bounds: %+v", ev)
	}
}
