package ingest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecodeBatch: whatever the body, DecodeBatch answers without a panic,
// and every event it accepts is one PostgreSQL stores as sent: valid UTF-8
// without NUL in its text, metadata that passes the checks again.
func FuzzDecodeBatch(f *testing.F) {
	for _, seed := range []string{
		`{"events":[` + evJSON(`"event_id":"e1","metadata":{"user_id":"u","k":[1,{"a":null}]}`) + `]}`,
		`{"events":[` + evJSON(`"metadata":{"k":"\ud800"}`) + `,` + evJSON(`"event_id":"\udc00x"`) + `]}`,
		`{"events":[],"outcomes":[{"trace_id":"t","success":true}]}`,
		`[{"events":[]}]`,
		`{"events":[{"input_token":1}]}`,
	} {
		f.Add([]byte(seed))
	}
	v := &Validator{Now: func() time.Time { return now }}
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := DecodeBatch(body, project, DefaultLimits, v)
		if err != nil {
			return
		}
		if len(b.Events)+len(b.Rejections) < b.Received {
			t.Fatalf("%d events in, %d accepted, %d rejected", b.Received, len(b.Events), len(b.Rejections))
		}
		for _, ev := range b.Events {
			for _, s := range []string{ev.EventID, ev.AgentName, ev.Model, ev.UserID, ev.SessionID, ev.Error, ev.TraceID} {
				if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
					t.Fatalf("accepted text %q", s)
				}
			}
			if len(ev.Metadata) > 0 && (!json.Valid(ev.Metadata) || CheckJSONText(ev.Metadata, MaxDepth) != "") {
				t.Fatalf("accepted metadata %s", ev.Metadata)
			}
		}
	})
}

// FuzzCheckJSONText: a JSON string the check accepts decodes without NUL
// and without U+FFFD that was not in the input, i.e. encoding/json replaced
// no lone surrogate, so what is stored is what was sent.
func FuzzCheckJSONText(f *testing.F) {
	for _, seed := range []string{`"a\ud83d\ude00b"`, `"\ud800"`, `"\udc00\ud800"`, `"\u0000"`, `"\\ud800"`,
		`{"k":[{"\ud800x":1}]}`, `"\ufffd"`, `"x\ud800\u0041"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		reason := CheckJSONText(raw, MaxDepth)
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return
		}
		if reason != "" {
			return
		}
		var walk func(any)
		walk = func(x any) {
			switch x := x.(type) {
			case string:
				if strings.ContainsRune(x, 0) {
					t.Fatalf("NUL passed in %s", raw)
				}
				if strings.ContainsRune(x, utf8.RuneError) && !strings.Contains(strings.ToLower(string(raw)), `\ufffd`) &&
					!strings.ContainsRune(string(raw), utf8.RuneError) {
					t.Fatalf("a lone surrogate passed in %s", raw)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					walk(k)
					walk(e)
				}
			}
		}
		walk(v)
	})
}
