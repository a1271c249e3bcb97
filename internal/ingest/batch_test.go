package ingest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
)

const project = "11111111-1111-1111-1111-111111111111"

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func decode(t *testing.T, body string) (*Batch, error) {
	t.Helper()
	return DecodeBatch([]byte(body), project, DefaultLimits, &Validator{Now: func() time.Time { return now }})
}

func evJSON(extra string) string {
	base := `"agent_name":"a","model":"gpt-5","input_tokens":10,"output_tokens":5,"timestamp":"2026-11-22T10:00:00Z"`
	if extra != "" {
		base += "," + extra
	}
	return "{" + base + "}"
}

func TestDecodeBatchAcceptsAValidEvent(t *testing.T) {
	b, err := decode(t, `{"project_id":"`+project+`","events":[`+evJSON(`"event_id":"e1","cached_tokens":4,"cache_write_1h_tokens":2,"cost":0.0125,"metadata":{"user_id":"u","session_id":"s","billing":"subscription","workflow":"w"},"workflow":"top","request_hash":"sha256:ab"`)+`]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != 1 || len(b.Rejections) != 0 {
		t.Fatalf("events %d rejections %+v", len(b.Events), b.Rejections)
	}
	ev := b.Events[0]
	switch {
	case ev.ProjectID != project, ev.EventID != "e1", ev.TotalTokens != 15, ev.CachedTokens != 4, ev.CacheWrite1hTokens != 2:
		t.Fatalf("fields: %+v", ev)
	case !ev.CostProvided || ev.CostNano != 12_500_000:
		t.Fatalf("cost: %d provided=%v", ev.CostNano, ev.CostProvided)
	case ev.UserID != "u" || ev.SessionID != "s" || ev.Billing != "subscription":
		t.Fatalf("metadata dimensions: %+v", ev)
	case ev.Workflow != "top":
		t.Fatalf("a top-level value must win over metadata: %q", ev.Workflow)
	case ev.RequestHash != "sha256:ab":
		t.Fatalf("request_hash: %q", ev.RequestHash)
	case !ev.Success || ev.Source != "batch":
		t.Fatalf("defaults: %+v", ev)
	}
}

func TestDecodeBatchRejectsBadEventsOneByOne(t *testing.T) {
	cases := []struct {
		name, event, field string
	}{
		{"missing model", `{"agent_name":"a","input_tokens":1,"output_tokens":1,"timestamp":"2026-11-22T10:00:00Z"}`, "model"},
		{"negative tokens", evJSON(`"cached_tokens":-1`), "cached_tokens"},
		{"fractional tokens", strings.Replace(evJSON(""), `"input_tokens":10`, `"input_tokens":1.5`, 1), "input_tokens"},
		{"string tokens", strings.Replace(evJSON(""), `"input_tokens":10`, `"input_tokens":"10"`, 1), "input_tokens"},
		{"huge tokens", strings.Replace(evJSON(""), `"input_tokens":10`, `"input_tokens":9223372036854775808`, 1), "input_tokens"},
		{"cached above input", evJSON(`"cached_tokens":8,"cache_write_tokens":3`), "cached_tokens"},
		{"1h writes above input", evJSON(`"cached_tokens":4,"cache_write_tokens":3,"cache_write_1h_tokens":4`), "cached_tokens"},
		{"negative cost", evJSON(`"cost":-0.1`), "cost"},
		{"string cost", evJSON(`"cost":"1"`), "cost"},
		{"bad timestamp", strings.Replace(evJSON(""), `2026-11-22T10:00:00Z`, `yesterday`, 1), "timestamp"},
		{"future timestamp", strings.Replace(evJSON(""), `2026-11-22T10:00:00Z`, `2026-11-24T10:00:00Z`, 1), "timestamp"},
		{"long trace id", evJSON(`"trace_id":"` + strings.Repeat("t", 65) + `"`), "trace_id"},
		{"long request hash", evJSON(`"request_hash":"` + strings.Repeat("h", 129) + `"`), "request_hash"},
		{"bad billing", evJSON(`"metadata":{"billing":"free"}`), "metadata.billing"},
		{"metadata not object", evJSON(`"metadata":[1]`), "metadata"},
		{"metadata too big", evJSON(`"metadata":{"k":"` + strings.Repeat("x", 16<<10) + `"}`), "metadata"},
		{"NUL in metadata", evJSON(`"metadata":{"k":"a\u0000b"}`), "metadata"},
		{"unknown field", evJSON(`"input_token":3`), "input_token"},
		{"case-folded key", evJSON(`"EVENT_ID":"x"`), "EVENT_ID"},
		{"success not bool", evJSON(`"success":"yes"`), "success"},
		{"not an object", `42`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := decode(t, `{"events":[`+evJSON(`"event_id":"good"`)+`,`+c.event+`]}`)
			if err != nil {
				t.Fatalf("a bad event must not fail the batch: %v", err)
			}
			if len(b.Events) != 1 || b.Events[0].EventID != "good" {
				t.Fatalf("the good event was not kept: %+v", b.Events)
			}
			if len(b.Rejections) != 1 || b.Rejections[0].Index != 1 || b.Rejections[0].Field != c.field {
				t.Fatalf("rejections %+v, want index 1 field %q", b.Rejections, c.field)
			}
		})
	}
}

func TestDecodeBatchWholeRequestErrors(t *testing.T) {
	many := make([]string, 1001)
	for i := range many {
		many[i] = evJSON("")
	}
	cases := []struct {
		name, body, code string
	}{
		{"malformed", `{"events":[`, apierr.BadRequest},
		{"trailing data", `{"events":[]}{}`, apierr.BadRequest},
		{"NaN", `{"events":[{"input_tokens":NaN}]}`, apierr.BadRequest},
		{"invalid UTF-8", "{\"events\":[],\"x\":\"\xff\"}", apierr.BadRequest},
		{"events not array", `{"events":{}}`, apierr.ValidationFailed},
		{"other project", `{"project_id":"22222222-2222-2222-2222-222222222222","events":[]}`, apierr.Forbidden},
		{"too many events", `{"events":[` + strings.Join(many, ",") + `]}`, apierr.ValidationFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decode(t, c.body)
			if err == nil || apierr.As(err).Code != c.code {
				t.Fatalf("got %v, want code %s", err, c.code)
			}
		})
	}
}

func TestDecodeBatchOutcomes(t *testing.T) {
	b, err := decode(t, `{"events":[],"outcomes":[{"trace_id":"t1","success":true,"label":"merged"},{"trace_id":"`+strings.Repeat("x", 65)+`","success":false},{"success":true}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Outcomes) != 1 || b.Outcomes[0].TraceID != "t1" || !b.Outcomes[0].Success || b.Outcomes[0].Label != "merged" {
		t.Fatalf("outcomes %+v", b.Outcomes)
	}
	want := []string{"outcomes.trace_id", "outcomes.trace_id"}
	if len(b.Rejections) != 2 || b.Rejections[0].Field != want[0] || b.Rejections[1].Index != 2 {
		t.Fatalf("rejections %+v", b.Rejections)
	}
}

func TestDecodeBatchGeneratesMissingEventIDs(t *testing.T) {
	b, err := decode(t, fmt.Sprintf(`{"events":[%s,%s]}`, evJSON(""), evJSON("")))
	if err != nil {
		t.Fatal(err)
	}
	if b.Events[0].EventID == "" || b.Events[0].EventID == b.Events[1].EventID {
		t.Fatalf("ids %q %q", b.Events[0].EventID, b.Events[1].EventID)
	}
}
