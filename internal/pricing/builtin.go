package pricing

import (
	"fmt"
	"sync"
)

// BuiltinSource names the built-in catalogue: the month its prices were
// last checked against the providers' pages. Catalogue versions start with it.
const BuiltinSource = "builtin-2026-11"

// row is one built-in model, rates in USD per million tokens as decimal
// text ("" = not published); parsed exactly at first use.
type row struct {
	model, provider, mode   string
	in, out, read, w5m, w1h string
	maxIn, maxOut           int64
	deprecated, replacement string
	tier                    *tierRow
}

// tierRow is a long-context tier: rates applying to the whole call above
// the threshold ("" = the base rate applies).
type tierRow struct {
	above                   int64
	in, out, read, w5m, w1h string
}

// builtinRows are the providers' published list prices (standard tier, no
// batch, flex or priority discounts, no regional uplift). Where a model is in
// the LiteLLM snapshot fixtures/pricing/litellm-subset-2026-07.json these
// rates equal it (TestBuiltinAgreesWithFixture), except the corrections
// listed in fixtureErrata in builtin_test.go. Replacements are our pick: the
// newest model of the same line in this table.
var builtinRows = []row{
	// Anthropic: 5-minute and 1-hour cache writes; Sonnet 4 and 4.5 charge
	// long-context rates above 200k prompt tokens, 4.6 and later do not.
	{"claude-fable-5-1", "anthropic", "chat", "10", "50", "0.25", "12.5", "20", 1000000, 128000, "", "", nil},
	{"claude-mythos-5-1", "anthropic", "chat", "10", "50", "0.25", "12.5", "20", 1000000, 128000, "", "", nil},
	{"claude-opus-5-5", "anthropic", "chat", "4", "20", "0.2", "5", "8", 1000000, 128000, "", "", nil},
	{"claude-sonnet-5-5", "anthropic", "chat", "2", "10", "0.2", "2.5", "4", 1000000, 128000, "", "", nil},
	{"claude-haiku-5-5", "anthropic", "chat", "0.1", "0.5", "0.01", "0.125", "0.2", 1000000, 64000, "", "", &tierRow{100000, "0.5", "2.5", "0.05", "0.625", "1"}},
	{"claude-fable-5", "anthropic", "chat", "10", "50", "1", "12.5", "20", 1000000, 128000, "", "", nil},
	{"claude-mythos-5", "anthropic", "chat", "10", "50", "1", "12.5", "20", 1000000, 128000, "", "", nil},
	{"claude-opus-5", "anthropic", "chat", "5", "25", "0.5", "6.25", "10", 1000000, 128000, "", "", nil},
	{"claude-opus-4-8", "anthropic", "chat", "5", "25", "0.5", "6.25", "10", 1000000, 128000, "", "", nil},
	{"claude-opus-4-7", "anthropic", "chat", "5", "25", "0.5", "6.25", "10", 1000000, 128000, "", "", nil},
	{"claude-opus-4-6", "anthropic", "chat", "5", "25", "0.5", "6.25", "10", 1000000, 128000, "", "", &tierRow{200000, "10", "37.5", "1", "12.5", "20"}},
	{"claude-opus-4-5", "anthropic", "chat", "5", "25", "0.5", "6.25", "10", 200000, 64000, "", "", nil},
	{"claude-opus-4-1", "anthropic", "chat", "15", "75", "1.5", "18.75", "30", 200000, 32000, "", "", nil},
	{"claude-opus-4-1-20250805", "anthropic", "chat", "15", "75", "1.5", "18.75", "30", 200000, 32000, "2026-08-05", "claude-opus-5", nil},
	{"claude-opus-4-20250514", "anthropic", "chat", "15", "75", "1.5", "18.75", "30", 200000, 32000, "2026-05-14", "claude-opus-5", nil},
	{"claude-sonnet-5", "anthropic", "chat", "2", "10", "0.2", "2.5", "4", 1000000, 128000, "", "", nil},
	{"claude-sonnet-4-6", "anthropic", "chat", "3", "15", "0.3", "3.75", "6", 1000000, 64000, "", "", &tierRow{200000, "6", "22.5", "0.6", "7.5", "12"}},
	{"claude-sonnet-4-5", "anthropic", "chat", "3", "15", "0.3", "3.75", "6", 200000, 64000, "", "", &tierRow{200000, "6", "22.5", "0.6", "7.5", "12"}},
	{"claude-sonnet-4-20250514", "anthropic", "chat", "3", "15", "0.3", "3.75", "6", 1000000, 64000, "2026-05-14", "claude-sonnet-5", &tierRow{200000, "6", "22.5", "0.6", "7.5", "12"}},
	{"claude-haiku-4-5", "anthropic", "chat", "1", "5", "0.1", "1.25", "2", 200000, 64000, "", "", nil},
	{"claude-3-7-sonnet-20250219", "anthropic", "chat", "3", "15", "0.3", "3.75", "6", 200000, 64000, "2026-02-19", "claude-sonnet-5", nil},
	{"claude-3-opus-20240229", "anthropic", "chat", "15", "75", "1.5", "18.75", "30", 200000, 4096, "2026-05-01", "claude-opus-5", nil},
	{"claude-3-haiku-20240307", "anthropic", "chat", "0.25", "1.25", "0.03", "0.3", "0.5", 200000, 4096, "", "", nil},

	// OpenAI: cached input only (5.6 also publishes a write rate); 5.4 and
	// later bill long context above 272k prompt tokens.
	{"gpt-6.2-sol", "openai", "chat", "2", "10", "0.1", "2.5", "", 1050000, 128000, "", "", &tierRow{272000, "4", "15", "0.2", "5", ""}},
	{"gpt-6.1-sol", "openai", "chat", "2", "10", "0.1", "2.5", "", 1050000, 128000, "", "", &tierRow{272000, "4", "15", "0.2", "5", ""}},
	{"gpt-6.1-terra", "openai", "chat", "1", "5", "0.05", "1.25", "", 1050000, 128000, "", "", &tierRow{272000, "2", "7.5", "0.1", "2.5", ""}},
	{"gpt-6-astra", "openai", "chat", "10", "50", "1", "12.5", "", 1050000, 128000, "", "", &tierRow{272000, "20", "75", "2", "25", ""}},
	{"gpt-6-sol", "openai", "chat", "2", "10", "0.2", "2.5", "", 400000, 128000, "", "", nil},
	{"gpt-6-luna", "openai", "chat", "0.1", "0.5", "0.01", "0.125", "", 400000, 128000, "", "", nil},
	{"gpt-5.6", "openai", "chat", "5", "30", "0.5", "6.25", "", 1050000, 128000, "", "", &tierRow{272000, "10", "45", "1", "12.5", ""}},
	{"gpt-5.6-luna", "openai", "chat", "1", "6", "0.1", "1.25", "", 400000, 128000, "", "", &tierRow{272000, "2", "9", "0.2", "2.5", ""}},
	{"gpt-5.6-sol", "openai", "chat", "5", "30", "0.5", "6.25", "", 400000, 128000, "", "", &tierRow{272000, "10", "45", "1", "12.5", ""}},
	{"gpt-5.6-terra", "openai", "chat", "2.5", "15", "0.25", "3.125", "", 400000, 128000, "", "", &tierRow{272000, "5", "22.5", "0.5", "6.25", ""}},
	{"gpt-5.5", "openai", "chat", "5", "30", "0.5", "", "", 1050000, 128000, "", "", &tierRow{272000, "10", "45", "1", "", ""}},
	{"gpt-5.5-pro", "openai", "responses", "30", "180", "", "", "", 1050000, 128000, "", "", &tierRow{272000, "60", "270", "", "", ""}},
	{"gpt-5.4", "openai", "chat", "2.5", "15", "0.25", "", "", 1050000, 128000, "", "", &tierRow{272000, "5", "22.5", "0.5", "", ""}},
	{"gpt-5.4-mini", "openai", "chat", "0.75", "4.5", "0.075", "", "", 400000, 128000, "", "", nil},
	{"gpt-5.4-nano", "openai", "chat", "0.2", "1.25", "0.02", "", "", 400000, 128000, "", "", nil},
	{"gpt-5.4-pro", "openai", "responses", "30", "180", "", "", "", 1050000, 128000, "", "", &tierRow{272000, "60", "270", "", "", ""}},
	{"gpt-5.3-codex", "openai", "responses", "1.75", "14", "0.175", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.3-codex-spark", "openai", "responses", "1.75", "14", "0.175", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.3-chat-latest", "openai", "chat", "1.75", "14", "0.175", "", "", 128000, 16384, "", "", nil},
	{"gpt-5.2", "openai", "chat", "1.75", "14", "0.175", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.2-pro", "openai", "responses", "21", "168", "", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.2-codex", "openai", "responses", "1.75", "14", "0.175", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.2-chat-latest", "openai", "chat", "1.75", "14", "0.175", "", "", 128000, 16384, "", "", nil},
	{"gpt-5.1", "openai", "chat", "1.25", "10", "0.125", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.1-codex", "openai", "responses", "1.25", "10", "0.125", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.1-codex-max", "openai", "responses", "1.25", "10", "0.125", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.1-codex-mini", "openai", "responses", "0.25", "2", "0.025", "", "", 272000, 128000, "", "", nil},
	{"gpt-5.1-chat-latest", "openai", "chat", "1.25", "10", "0.125", "", "", 128000, 16384, "", "", nil},
	{"gpt-5", "openai", "chat", "1.25", "10", "0.125", "", "", 272000, 128000, "", "", nil},
	{"gpt-5-mini", "openai", "chat", "0.25", "2", "0.025", "", "", 272000, 128000, "", "", nil},
	{"gpt-5-nano", "openai", "chat", "0.05", "0.4", "0.005", "", "", 272000, 128000, "", "", nil},
	{"gpt-5-pro", "openai", "responses", "15", "120", "", "", "", 400000, 128000, "", "", nil},
	{"gpt-5-codex", "openai", "responses", "1.25", "10", "0.125", "", "", 272000, 128000, "", "", nil},
	{"gpt-5-chat-latest", "openai", "chat", "1.25", "10", "0.125", "", "", 128000, 16384, "", "", nil},
	{"codex-auto-review", "openai", "chat", "5", "30", "0.5", "", "", 1050000, 128000, "", "", &tierRow{272000, "10", "45", "1", "", ""}},
	{"gpt-4.1", "openai", "chat", "2", "8", "0.5", "", "", 1047576, 32768, "", "", nil},
	{"gpt-4.1-mini", "openai", "chat", "0.4", "1.6", "0.1", "", "", 1047576, 32768, "", "", nil},
	{"gpt-4.1-nano", "openai", "chat", "0.1", "0.4", "0.025", "", "", 1047576, 32768, "", "", nil},
	{"gpt-4o", "openai", "chat", "2.5", "10", "1.25", "", "", 128000, 16384, "", "", nil},
	{"gpt-4o-2024-05-13", "openai", "chat", "5", "15", "", "", "", 128000, 4096, "", "", nil},
	{"gpt-4o-mini", "openai", "chat", "0.15", "0.6", "0.075", "", "", 128000, 16384, "", "", nil},
	{"o3", "openai", "chat", "10", "40", "2.5", "", "", 200000, 100000, "", "", nil},
	{"o3-pro", "openai", "responses", "20", "80", "", "", "", 200000, 100000, "", "", nil},
	{"o3-mini", "openai", "chat", "1.1", "4.4", "0.55", "", "", 200000, 100000, "", "", nil},
	{"o4-mini", "openai", "chat", "1.1", "4.4", "0.275", "", "", 200000, 100000, "", "", nil},
	{"o1-pro", "openai", "responses", "150", "600", "", "", "", 200000, 100000, "", "", nil},
	{"gpt-4-turbo", "openai", "chat", "10", "30", "", "", "", 128000, 4096, "", "", nil},
	{"gpt-4", "openai", "chat", "30", "60", "", "", "", 8192, 4096, "", "", nil},
	{"gpt-3.5-turbo", "openai", "chat", "0.5", "1.5", "", "", "", 16385, 4096, "", "", nil},
	{"gpt-3.5-turbo-1106", "openai", "chat", "1", "2", "", "", "", 16385, 4096, "2026-09-28", "", nil},
	{"gpt-3.5-turbo-0613", "openai", "chat", "1.5", "2", "", "", "", 4097, 4096, "2024-09-13", "gpt-3.5-turbo", nil},
	{"gpt-3.5-turbo-0301", "openai", "chat", "1.5", "2", "", "", "", 4097, 4096, "2024-09-13", "gpt-3.5-turbo", nil},

	// Google Gemini: implicit caching, long context above 200k for the Pro models.
	{"gemini-4-argon", "google", "chat", "4", "20", "0.2", "", "", 1048576, 65536, "", "", nil},
	{"gemini-4-carbon", "google", "chat", "4", "20", "0.2", "", "", 1048576, 65536, "", "", nil},
	{"gemini-4-hydrogen", "google", "chat", "1.5", "7.5", "0.075", "", "", 1048576, 65536, "", "", nil},
	{"gemini-3.8-flash", "google", "chat", "1.5", "7.5", "0.15", "", "", 1048576, 65536, "", "", nil},
	{"gemini-3.7-flash", "google", "chat", "1.5", "7.5", "0.15", "", "", 1048576, 65536, "", "", nil},
	{"gemini-3.6-flash", "google", "chat", "1.5", "7.5", "0.15", "", "", 1048576, 65536, "", "", nil},
	{"gemini-3.5-flash", "google", "chat", "1.5", "9", "0.15", "", "", 1048576, 65535, "2026-10-08", "gemini-3.6-flash", nil},
	{"gemini-3.5-flash-lite", "google", "chat", "0.3", "2.5", "0.03", "", "", 1048576, 65536, "", "", nil},
	{"gemini-3.1-pro-preview", "google", "chat", "2", "12", "0.2", "", "", 1048576, 65536, "", "", &tierRow{200000, "4", "18", "0.4", "0.25", ""}},
	{"gemini-3.1-flash-lite", "google", "chat", "0.25", "1.5", "0.025", "", "", 1048576, 65536, "", "", nil},
	{"gemini-3.1-flash-lite-preview", "google", "chat", "0.25", "1.5", "0.025", "", "", 1048576, 65536, "", "", nil},
	{"gemini-3-pro-preview", "google", "chat", "2", "12", "0.2", "", "", 1048576, 65535, "2026-03-26", "gemini-3.1-pro-preview", &tierRow{200000, "4", "18", "0.4", "0.25", ""}},
	{"gemini-3-flash", "google", "chat", "0.5", "3", "0.05", "", "", 1048576, 65535, "", "", nil},
	{"gemini-3-flash-preview", "google", "chat", "0.5", "3", "0.05", "", "", 1048576, 65535, "", "", nil},
	{"gemini-2.5-pro", "google", "chat", "1.25", "10", "0.125", "", "", 1048576, 65535, "", "", &tierRow{200000, "2.5", "15", "0.25", "0.25", ""}},
	{"gemini-2.5-flash", "google", "chat", "0.3", "2.5", "0.03", "", "", 1048576, 65535, "", "", nil},
	{"gemini-2.5-flash-lite", "google", "chat", "0.1", "0.4", "0.01", "", "", 1048576, 65535, "", "", nil},
	{"gemini-2.0-flash", "google", "chat", "0.1", "0.4", "0.025", "", "", 1048576, 8192, "2026-06-01", "gemini-2.5-flash", nil},
	{"gemini-2.0-flash-lite", "google", "chat", "0.075", "0.3", "0.01875", "", "", 1048576, 8192, "2026-06-01", "gemini-2.5-flash-lite", nil},

	// Mistral (not in the fixture): cached prompt tokens at 10% of the input
	// rate, no write rate. The -latest aliases are in builtinAliases.
	{"mistral-large-2512", "mistral", "chat", "0.5", "1.5", "0.05", "", "", 0, 0, "", "", nil},
	{"mistral-large-2411", "mistral", "chat", "2", "6", "0.2", "", "", 0, 0, "", "mistral-large-2512", nil},
	{"mistral-medium-2604", "mistral", "chat", "1.5", "7.5", "0.15", "", "", 0, 0, "", "", nil},
	{"mistral-medium-2508", "mistral", "chat", "0.4", "2", "0.04", "", "", 0, 0, "", "", nil},
	{"mistral-medium-2505", "mistral", "chat", "0.4", "2", "0.04", "", "", 0, 0, "", "", nil},
	{"mistral-small-2603", "mistral", "chat", "0.15", "0.6", "0.015", "", "", 0, 0, "", "", nil},
	{"mistral-small-2506", "mistral", "chat", "0.1", "0.3", "0.01", "", "", 0, 0, "", "", nil},
	// Magistral Medium stays at $2/$5: Mistral's card of 1.0 says so and
	// catalogues give 1.2 the same. The $1.50/$7.50 of others is Mistral
	// Medium 3.5's, the replacement Mistral names, and no Mistral page
	// found says magistral-medium-latest is served by it (docs/pricing.md).
	{"magistral-medium-2509", "mistral", "chat", "2", "5", "0.2", "", "", 0, 0, "", "", nil},
	{"magistral-small-2509", "mistral", "chat", "0.5", "1.5", "0.05", "", "", 0, 0, "", "", nil},
	{"codestral-2508", "mistral", "chat", "0.3", "0.9", "0.03", "", "", 0, 0, "", "", nil},
	{"devstral-2512", "mistral", "chat", "0.4", "2", "0.04", "", "", 0, 0, "", "", nil},
	{"devstral-medium-2507", "mistral", "chat", "0.4", "2", "0.04", "", "", 0, 0, "", "", nil},
	{"devstral-small-2507", "mistral", "chat", "0.1", "0.3", "0.01", "", "", 0, 0, "", "", nil},
	{"ministral-14b-2512", "mistral", "chat", "0.2", "0.2", "0.02", "", "", 0, 0, "", "", nil},
	{"ministral-8b-2512", "mistral", "chat", "0.15", "0.15", "0.015", "", "", 0, 0, "", "", nil},
	{"ministral-3b-2512", "mistral", "chat", "0.1", "0.1", "0.01", "", "", 0, 0, "", "", nil},
	{"ministral-8b-2410", "mistral", "chat", "0.1", "0.1", "0.01", "", "", 0, 0, "", "", nil},
	{"ministral-3b-2410", "mistral", "chat", "0.04", "0.04", "0.004", "", "", 0, 0, "", "", nil},
	// Mistral's model card: $0.15/$0.15, deprecated 2026-05-22, retired
	// 2026-07-31, replaced by Ministral 3 8B; the $0.30 of some catalogues
	// has no Mistral source.
	{"open-mistral-nemo", "mistral", "chat", "0.15", "0.15", "0.015", "", "", 0, 0, "2026-07-31", "ministral-8b-2512", nil},

	// DeepSeek: cache misses are plain input, so no write rate. Peak and
	// off-peak rates, and the retired names, are in builtin_periods.go.
	{"deepseek-v4-pro", "deepseek", "chat", "0.435", "0.87", "0.003625", "", "", 1000000, 8192, "", "", nil},
	{"deepseek-flash", "deepseek", "chat", "0.14", "0.28", "0.0028", "", "", 1000000, 8192, "", "", nil},
	{"deepseek-chat", "deepseek", "chat", "0.28", "0.42", "0.028", "", "", 131072, 8192, "2026-07-24", "deepseek-flash", nil},
	{"deepseek-reasoner", "deepseek", "chat", "0.28", "0.42", "0.028", "", "", 131072, 65536, "2026-07-24", "deepseek-flash", nil},

	// xAI Grok: cached input only; Grok 4 and the 4 Fast models bill long
	// context above 128k prompt tokens. Grok 4.6, 4.5, 4.3, 4.20 and Build
	// 0.1 double every rate once the prompt reaches 200k tokens (xAI:
	// "requests whose prompt reaches 200k tokens are billed at the higher
	// rate for all tokens"), hence threshold xaiReaches200k. The LiteLLM
	// snapshot lacks these tiers (fixtureMissingTiers) and has Grok 4.5's
	// cached input at the superseded $0.50 (fixtureErrata).
	{"grok-4.7", "xai", "chat", "2", "6", "0.5", "", "", 500000, 0, "", "", &tierRow{xaiReaches200k, "4", "12", "1", "", ""}},
	{"grok-4.6", "xai", "chat", "2", "6", "0.5", "", "", 500000, 0, "", "", &tierRow{xaiReaches200k, "4", "12", "1", "", ""}},
	{"grok-4.5", "xai", "chat", "2", "6", "0.3", "", "", 500000, 500000, "", "", &tierRow{xaiReaches200k, "4", "12", "0.6", "", ""}},
	{"grok-4.3", "xai", "chat", "1.25", "2.5", "0.2", "", "", 1000000, 1000000, "", "", &tierRow{xaiReaches200k, "2.5", "5", "0.4", "", ""}},
	{"grok-4.20-0309-reasoning", "xai", "chat", "1.25", "2.5", "0.2", "", "", 1000000, 1000000, "", "", &tierRow{xaiReaches200k, "2.5", "5", "0.4", "", ""}},
	{"grok-4.20-0309-non-reasoning", "xai", "chat", "1.25", "2.5", "0.2", "", "", 1000000, 1000000, "", "", &tierRow{xaiReaches200k, "2.5", "5", "0.4", "", ""}},
	{"grok-4.20-multi-agent-0309", "xai", "chat", "1.25", "2.5", "0.2", "", "", 1000000, 1000000, "", "", &tierRow{xaiReaches200k, "2.5", "5", "0.4", "", ""}},
	{"grok-build-0.1", "xai", "chat", "1", "2", "0.2", "", "", 256000, 256000, "", "", &tierRow{xaiReaches200k, "2", "4", "0.4", "", ""}},
	{"grok-4-1-fast-reasoning", "xai", "chat", "0.2", "0.5", "0.05", "", "", 2000000, 30000, "2026-05-15", "grok-4.3", &tierRow{128000, "0.4", "1", "", "", ""}},
	{"grok-4-1-fast-non-reasoning", "xai", "chat", "0.2", "0.5", "0.05", "", "", 2000000, 30000, "2026-05-15", "grok-4.3", &tierRow{128000, "0.4", "1", "", "", ""}},
	{"grok-4-fast-reasoning", "xai", "chat", "0.2", "0.5", "0.05", "", "", 2000000, 30000, "2026-05-15", "grok-4.3", &tierRow{128000, "0.4", "1", "", "", ""}},
	{"grok-4-fast-non-reasoning", "xai", "chat", "0.2", "0.5", "0.05", "", "", 2000000, 30000, "2026-05-15", "grok-4.3", &tierRow{128000, "0.4", "1", "", "", ""}},
	{"grok-4-0709", "xai", "chat", "3", "15", "0.75", "", "", 256000, 0, "2026-05-15", "grok-4.3", &tierRow{128000, "6", "30", "", "", ""}},
	{"grok-code-fast-1", "xai", "chat", "0.2", "1.5", "0.02", "", "", 256000, 0, "", "", nil},
	{"grok-3", "xai", "chat", "3", "15", "0.75", "", "", 131072, 0, "2026-05-15", "grok-4.3", nil},
	{"grok-3-mini", "xai", "chat", "0.3", "0.5", "0.075", "", "", 131072, 0, "", "", nil},
}

// xaiReaches200k is the threshold of xAI's 200k tiers: xAI bills a prompt
// that reaches 200,000 tokens at the higher rate, and a Tier prices prompts
// that exceed its threshold (as LiteLLM's "above_200k" and genai-prices'
// tier "start" do), so the threshold is one token lower.
const xaiReaches200k = 199_999

var builtinOnce = sync.OnceValue(func() *Catalogue {
	entries := make([]Entry, 0, len(builtinRows))
	for _, r := range builtinRows {
		e, err := r.entry()
		if err != nil {
			panic(err) // a typo in the table; caught by the tests
		}
		entries = append(entries, e)
	}
	return NewCatalogue(entries, BuiltinSource)
})

// Builtin returns the built-in catalogue, the fallback when no sync or import
// has succeeded. It is built once and shared.
func Builtin() *Catalogue { return builtinOnce() }

func (r row) entry() (Entry, error) {
	base, err := rowRates(r.in, r.out, r.read, r.w5m, r.w1h)
	if err != nil {
		return Entry{}, fmt.Errorf("pricing: builtin %s: %w", r.model, err)
	}
	if base.Input == 0 || base.Output == 0 {
		return Entry{}, fmt.Errorf("pricing: builtin %s: input and output rates are required", r.model)
	}
	e := Entry{Model: r.model, Provider: r.provider, Mode: r.mode, Base: base,
		MaxInputTokens: r.maxIn, MaxOutputTokens: r.maxOut,
		DeprecationDate: r.deprecated, Replacement: r.replacement, Source: "builtin",
		Aliases: builtinAliases[r.model]}
	if e.Periods, err = r.periods(); err != nil {
		return Entry{}, err
	}
	if t := r.tier; t != nil {
		tr, err := rowRates(t.in, t.out, t.read, t.w5m, t.w1h)
		if err != nil {
			return Entry{}, fmt.Errorf("pricing: builtin %s tier: %w", r.model, err)
		}
		e.LongContext = &Tier{ThresholdTokens: t.above, Rates: tr}
	}
	return e, nil
}

func rowRates(in, out, read, w5m, w1h string) (Rates, error) {
	var r Rates
	var err error
	field := func(s string, dst *int64, has *bool) {
		if s == "" || err != nil {
			return
		}
		*dst, err = perMillion(s)
		if has != nil {
			*has = true
		}
	}
	field(in, &r.Input, nil)
	field(out, &r.Output, nil)
	field(read, &r.CacheRead, &r.HasCacheRead)
	field(w5m, &r.CacheWrite, &r.HasCacheWrite)
	field(w1h, &r.CacheWrite1h, &r.HasCacheWrite1h)
	return r, err
}
