package pricing

import "testing"

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"},
		{"bedrock/eu.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"},
		{"global.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"},
		{"anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5"},
		{"vertex_ai/claude-opus-4-1@20250805", "claude-opus-4-1"},
		{"claude-opus-4-6[1m]", "claude-opus-4-6"},
		{"openai/gpt-5-mini", "gpt-5-mini"},
		{"gpt-5-mini-2025-08-07", "gpt-5-mini"},
		{"gpt-4-0613", "gpt-4"},
		{"gemini/gemini-2.5-pro", "gemini-2.5-pro"},
		{"vertex_ai/gemini-2.5-flash", "gemini-2.5-flash"},
		{"models/gemini-2.5-flash-lite", "gemini-2.5-flash-lite"},
		{"projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-pro", "gemini-2.5-pro"},
		{"openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"openrouter/openai/gpt-5", "gpt-5"},
		{"  Claude-Sonnet-4-5  ", "claude-sonnet-4-5"},
		// Left alone: not a date, or a name of its own.
		{"mistral-large-2411", "mistral-large-2411"},                             // YYMM, not MMDD
		{"grok-4.20-multi-agent-0309", "grok-4.20-multi-agent-0309"},             // xAI release tag
		{"gemini-2.5-flash-preview-09-2025", "gemini-2.5-flash-preview-09-2025"}, // preview tag
		{"claude-3-5-sonnet-latest", "claude-3-5-sonnet-latest"},
		{"deepseek-v3", "deepseek-v3"},               // "-v3" is a version only in Bedrock ids
		{"gpt-4.1", "gpt-4.1"},                       // dots stay outside claude-*
		{"groq/llama-3.1-70b", "groq/llama-3.1-70b"}, // hosts price on their own
		{"Llama-3.1-70B", "llama-3.1-70b"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLookupNormalisation(t *testing.T) {
	tests := []struct{ in, want string }{ // want "" = unknown
		{"anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5"},
		{"claude-opus-4-6[1m]", "claude-opus-4-6"},
		{"claude-opus-4-7[1m]", "claude-opus-4-7"},
		{"openai/gpt-5-mini", "gpt-5-mini"},
		{"gemini/gemini-2.5-pro", "gemini-2.5-pro"},
		{"vertex_ai/gemini-2.5-flash", "gemini-2.5-flash"},
		{"openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"azure/gpt-4.1", "gpt-4.1"},
		{"xai/grok-4.20-0309-reasoning", "grok-4.20-0309-reasoning"},
		{"mistral/mistral-large-2512", "mistral-large-2512"},
		{"deepseek/deepseek-chat", "deepseek-chat"},
		{"CLAUDE-HAIKU-4-5", "claude-haiku-4-5"},
		// A dated entry that is its own key wins over the family name.
		{"gpt-4o-2024-05-13", "gpt-4o-2024-05-13"},
		{"gpt-4o-2024-11-20", "gpt-4o"},
		{"gpt-3.5-turbo-1106", "gpt-3.5-turbo-1106"},
		{"gpt-3.5-turbo-0125", "gpt-3.5-turbo"},
		{"vertex_ai/claude-opus-4-1@20250805", "claude-opus-4-1-20250805"},
		{"anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku-20240307"},
		{"gpt-5-2025-08-07", "gpt-5"},
		// Unknown names stay unknown.
		{"llama-3.1-70b", ""},
		{"claude-sonnet-9", ""},
		{"gpt-5-mini-turbo", ""},
		{"deepseek-v3", ""},
		{"mistral-large-latest", "mistral-large-2512"},
		{"codestral-latest", "codestral-2508"},
		{"grok-4", "grok-4-0709"},
		{"xai/grok-4-fast", "grok-4-fast-reasoning"},
		{"claude-opus-4", "claude-opus-4-20250514"},
		{"deepseek-v4-flash", "deepseek-flash"},
		{"claude-3-5-sonnet-latest", ""},
		{"groq/gpt-4.1", ""},
		{"", ""},
		{"   ", ""},
	}
	c := Builtin()
	for _, tt := range tests {
		e, ok := c.Lookup(tt.in)
		switch {
		case tt.want == "" && ok:
			t.Errorf("Lookup(%q) = %q, want unknown", tt.in, e.Model)
		case tt.want != "" && (!ok || e.Model != tt.want):
			t.Errorf("Lookup(%q) = %q, %v; want %q", tt.in, e.Model, ok, tt.want)
		}
	}
}
