package pricing

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const fixturePath = "../../testdata/fixtures/pricing/litellm-subset-2026-07.json"

// loadFixture fails (never skips) when the fixture is missing.
func loadFixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatalf("fixture required: %v", err)
	}
	return data
}

func parseFixture(t *testing.T) (map[string]Entry, map[string]string) {
	t.Helper()
	entries, skipped, err := ParseLiteLLM(loadFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Model] = e
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Model] = s.Reason
	}
	return got, reasons
}

func TestParseLiteLLMFixture(t *testing.T) {
	data := loadFixture(t)
	got, reasons := parseFixture(t)

	// Independent expectation from a generic decode: every text-mode entry
	// with non-zero token rates is imported, everything else is skipped.
	var raw map[string]map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(got)+len(reasons) != len(raw) || len(raw) != 218 {
		t.Fatalf("imported %d + skipped %d, fixture has %d (want 218)", len(got), len(reasons), len(raw))
	}
	for name, v := range raw {
		mode, _ := v["mode"].(string)
		in, hasIn := v["input_cost_per_token"].(float64)
		out, hasOut := v["output_cost_per_token"].(float64)
		want := (mode == "chat" || mode == "completion" || mode == "responses" || mode == "") &&
			hasIn && hasOut && (in > 0 || out > 0)
		if _, imported := got[name]; imported != want {
			t.Errorf("%s: imported = %v, want %v (skip reason %q)", name, imported, want, reasons[name])
		}
		if r, skipped := reasons[name]; skipped && r == "" {
			t.Errorf("%s: skipped without a reason", name)
		}
	}

	for name, wantReason := range map[string]string{
		"gpt-image-1":            `mode "image_generation"`,
		"gemini-2.5-flash-image": `mode "image_generation"`,
		"gpt-realtime-whisper":   "priced per second",
		"gemini-embedding-001":   `mode "embedding"`,
		"gpt-4o-mini-tts":        `mode "audio_speech"`,
		"gemini-live-2.5-flash-preview-native-audio-09-2025": `mode "realtime"`,
		"deepseek-v3-2-251201":                               "both zero",
	} {
		if !strings.Contains(reasons[name], wantReason) {
			t.Errorf("%s: skip reason %q, want it to mention %q", name, reasons[name], wantReason)
		}
	}

	s := got["claude-sonnet-4-5"]
	wantBase := Rates{Input: 3e12, Output: 15e12, CacheRead: 3e11, CacheWrite: 375e10, CacheWrite1h: 6e12,
		HasCacheRead: true, HasCacheWrite: true, HasCacheWrite1h: true}
	wantTier := Tier{200_000, Rates{Input: 6e12, Output: 225e11, CacheRead: 6e11, CacheWrite: 75e11, CacheWrite1h: 12e12,
		HasCacheRead: true, HasCacheWrite: true, HasCacheWrite1h: true}}
	if s.Base != wantBase || s.LongContext == nil || *s.LongContext != wantTier || s.Provider != "anthropic" || s.MaxInputTokens != 200_000 {
		t.Errorf("claude-sonnet-4-5 = %+v tier %+v", s, s.LongContext)
	}
	if g := got["gpt-5.4"]; g.LongContext == nil || g.LongContext.ThresholdTokens != 272_000 || g.LongContext.CacheRead != 5e11 {
		t.Errorf("gpt-5.4 272k tier = %+v", g.LongContext)
	}
	if g := got["gemini-2.5-pro"]; g.Provider != "google" || g.LongContext == nil || g.LongContext.Input != 25e11 || g.Base.HasCacheWrite {
		t.Errorf("gemini-2.5-pro = %+v tier %+v", g, g.LongContext)
	}
	// DeepSeek's 0.0 write rate means "plain input", not free.
	if d := got["deepseek-v4-flash"]; d.Base.HasCacheWrite || d.Base.CacheRead != 2_800_000_000 {
		t.Errorf("deepseek-v4-flash = %+v", d.Base)
	}
	if g := got["gpt-3.5-turbo-instruct"]; g.Mode != "completion" || g.Provider != "openai" {
		t.Errorf("completion entry = %+v", g)
	}
	if d := got["gpt-4-0613"]; d.DeprecationDate != "2025-06-06" {
		t.Errorf("deprecation date not read: %+v", d)
	}
}

func TestParseLiteLLMBadRateKeepsTheRest(t *testing.T) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(loadFixture(t), &doc); err != nil {
		t.Fatal(err)
	}
	before, _, _ := ParseLiteLLM(loadFixture(t))
	doc["gpt-4.1"] = json.RawMessage(strings.Replace(string(doc["gpt-4.1"]),
		`"input_cost_per_token": 2e-06`, `"input_cost_per_token": -2e-06`, 1))
	data, _ := json.Marshal(doc)
	after, skipped, err := ParseLiteLLM(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before)-1 {
		t.Errorf("imported %d, want %d (only the bad entry dropped)", len(after), len(before)-1)
	}
	found := false
	for _, s := range skipped {
		if s.Model == "gpt-4.1" && strings.Contains(s.Reason, "negative") {
			found = true
		}
	}
	if !found {
		t.Errorf("gpt-4.1 not skipped as negative: %v", skipped)
	}
}

func TestParseLiteLLMCases(t *testing.T) {
	doc := `{
	  "sample_spec": {"input_cost_per_token": 0, "output_cost_per_token": 0, "mode": "chat"},
	  "no-mode": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06},
	  "too-dear": {"input_cost_per_token": 1.5, "output_cost_per_token": 2e-06, "mode": "chat"},
	  "bad-cache": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "cache_read_input_token_cost": -1e-07},
	  "infinite": {"input_cost_per_token": 1e400, "output_cost_per_token": 2e-06},
	  "nan-string": {"input_cost_per_token": "NaN", "output_cost_per_token": 2e-06},
	  "string-rate": {"input_cost_per_token": "3e-06", "output_cost_per_token": "1.5e-05"},
	  "float-artefact": {"input_cost_per_token": 1.6666666666666667e-07, "output_cost_per_token": 2e-06},
	  "two-tiers": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06,
	     "input_cost_per_token_above_128k_tokens": 2e-06, "input_cost_per_token_above_200k_tokens": 3e-06},
	  "per-char": {"input_cost_per_character": 1e-07, "output_cost_per_character": 2e-07, "mode": "chat"},
	  "no-rates": {"mode": "chat"},
	  "not-object": 42,
	  "null-field": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "cache_read_input_token_cost": null,
	     "output_cost_per_reasoning_token": 9e-06, "max_input_tokens": 1000, "max_tokens": 500}
	}`
	entries, skipped, err := ParseLiteLLM([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Model] = e
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Model] = s.Reason
	}
	for name, want := range map[string]string{
		"sample_spec": "specimen", "too-dear": "above $1", "bad-cache": "negative",
		"infinite": "not a finite number", "nan-string": "not a finite number",
		"two-tiers": "more than one", "per-char": "per character only",
		"no-rates": "no input_cost_per_token", "not-object": "not a JSON object",
	} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s: reason %q, want %q", name, reasons[name], want)
		}
	}
	if e := got["no-mode"]; e.Mode != "chat" || e.Base.Input != 1e12 {
		t.Errorf("entry without mode: %+v", e)
	}
	if e := got["string-rate"]; e.Base.Input != 3e12 || e.Base.Output != 15e12 {
		t.Errorf("string rates: %+v", e.Base)
	}
	if e := got["float-artefact"]; e.Base.Input != 166_666_666_667 {
		t.Errorf("float artefact rounded to %d, want 166666666667", e.Base.Input)
	}
	// Reasoning has no rate of its own: output covers it.
	if e := got["null-field"]; e.Base.Output != 2e12 || e.Base.HasCacheRead || e.MaxInputTokens != 1000 || e.MaxOutputTokens != 500 {
		t.Errorf("null-field: %+v", e)
	}
	if len(entries)+len(skipped) != 13 {
		t.Errorf("%d + %d results for 13 keys", len(entries), len(skipped))
	}
	for _, bad := range []string{`[]`, `"x"`, `{`, ``} {
		if _, _, err := ParseLiteLLM([]byte(bad)); err == nil {
			t.Errorf("ParseLiteLLM(%q) accepted a non-object document", bad)
		}
	}
}

func TestCheckMassDrop(t *testing.T) {
	tests := []struct {
		current, next int
		ok            bool
	}{
		{200, 10, false}, // the brief's case
		{200, 99, false}, // 101 dropped: more than half
		{200, 100, true}, // exactly half is allowed
		{200, 250, true}, // growth
		{0, 0, true},     // first import
		{200, 0, false},  // empty file
	}
	for _, tt := range tests {
		if err := CheckMassDrop(tt.current, tt.next); (err == nil) != tt.ok {
			t.Errorf("CheckMassDrop(%d, %d) = %v, want ok=%v", tt.current, tt.next, err, tt.ok)
		}
	}
}
