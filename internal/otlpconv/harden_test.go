package otlpconv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCheckExportRefusesWhatIsNoExportRequest(t *testing.T) {
	cases := []struct {
		body, key string
		ok        bool
	}{
		{`{"resourceLogs":[]}`, LogsKey, true},
		{`{"resource_logs":[]}`, LogsKey, true},
		{`{}`, LogsKey, true},
		{`{"resourceSpans":[]}`, TracesKey, true},
		{`{"foo":1}`, LogsKey, false},
		{`{"resourceSpans":[]}`, LogsKey, false},
		{`[{"resourceLogs":[]}]`, LogsKey, false},
		{`null`, MetricsKey, false},
		{``, LogsKey, false},
	}
	for _, c := range cases {
		err := CheckExport([]byte(c.body), c.key)
		if (err == nil) != c.ok {
			t.Errorf("%s as %s: %v", c.body, c.key, err)
		}
		if err != nil && !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: the error does not name %s: %v", c.body, c.key, err)
		}
	}
}

// Claude Code and Gemini CLI say nothing about streaming: unknown (nil).
// Codex streams every call. Codex's [otel] environment (resource env) is
// kept as the deployment.environment tag.
func TestStreamingUnknownAndCodexEnvironment(t *testing.T) {
	for _, fixture := range []string{"claude_code_session.json", "gemini_cli_session.json", "codex_session.json"} {
		raw, err := os.ReadFile(filepath.Join(fixtureDir, fixture))
		if err != nil {
			t.Fatal(err)
		}
		ld, err := DecodeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		res := Convert(ld, fixtureNow)
		if len(res.Events) == 0 {
			t.Fatalf("%s: no events", fixture)
		}
		for _, c := range res.Events {
			ev := c.Event
			switch {
			case fixture != "codex_session.json" && ev.Streaming != nil:
				t.Errorf("%s: streaming %v, want unknown", fixture, *ev.Streaming)
			case fixture == "codex_session.json" && (ev.Streaming == nil || !*ev.Streaming):
				t.Errorf("codex: streaming %v, want true", ev.Streaming)
			case fixture == "codex_session.json" && !strings.Contains(string(ev.Metadata), `"deployment.environment":"dev"`):
				t.Errorf("codex metadata %s lacks the environment", ev.Metadata)
			}
		}
	}
}

// FuzzConvert: any body either fails to decode or converts without a
// panic into events PostgreSQL stores as they are, each id once.
func FuzzConvert(f *testing.F) {
	for _, name := range []string{"claude_code_session.json", "codex_session.json", "gemini_cli_session.json", "genai_semconv.json"} {
		raw, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"foo":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ld, err := DecodeJSON(body)
		if err != nil {
			return
		}
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		res := Convert(ld, now)
		seen := map[string]bool{}
		for _, c := range res.Events {
			ev := c.Event
			if seen[ev.EventID] {
				t.Fatalf("event id %s twice", ev.EventID)
			}
			seen[ev.EventID] = true
			if err := storable(&ev, now); err != nil {
				t.Fatalf("emitted an unstorable event: %v", err)
			}
			if ev.InputTokens < 0 || ev.OutputTokens < 0 || ev.CachedTokens < 0 {
				t.Fatalf("negative tokens: %+v", ev)
			}
			if len(ev.Metadata) > 0 && (!utf8.Valid(ev.Metadata) || strings.Contains(string(ev.Metadata), `\u0000`)) {
				t.Fatalf("metadata %s", ev.Metadata)
			}
		}
	})
}
