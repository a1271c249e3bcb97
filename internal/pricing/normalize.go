package pricing

import "strings"

// providerPrefixes are routing prefixes that do not change the list price of
// the model behind them. Hosts of open-weight models (groq/, together_ai/ ...)
// are deliberately absent: their prices are their own.
var providerPrefixes = []string{
	"anthropic/", "openai/", "gemini/", "google/", "vertex_ai/", "vertex/",
	"bedrock/", "converse/", "mistral/", "mistralai/", "deepseek/", "xai/",
	"x-ai/", "azure/", "azure_ai/", "models/",
}

// bedrockRegions are the cross-region inference profile prefixes of Bedrock
// model ids ("us.anthropic.claude-…").
var bedrockRegions = []string{"us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au.", "ca."}

// bedrockVendors are the vendor prefixes of Bedrock model ids.
var bedrockVendors = []string{"anthropic.", "mistral.", "deepseek.", "openai.", "meta.", "amazon.", "cohere.", "ai21.", "qwen."}

// Normalize maps a model name as clients send it to the catalogue's
// canonical form: lower-case and trimmed; provider routing prefixes,
// OpenRouter's "openrouter/<vendor>/", Vertex resource paths, Bedrock region
// and vendor prefixes and "-v1:0"-style suffixes, Vertex "@date" and Claude
// Code's "[1m]" suffix removed; Claude version dots turned into dashes
// ("claude-sonnet-4.5"); and finally a release-date suffix stripped
// ("-20250929", "-2025-08-07", and "-0613" for gpt-* names only). "-latest"
// is a name of its own and stays. A name it does not recognise comes back
// lower-cased and otherwise unchanged.
func Normalize(model string) string {
	return stripDate(normalizeKeepDate(model))
}

// normalizeKeepDate is Normalize without the date strip, so that a dated
// catalogue entry can still be found before the undated family name.
func normalizeKeepDate(model string) string {
	s := strings.ToLower(strings.TrimSpace(model))
	// Claude Code marks the 1M-context beta as "[1m]"; the tier is decided by
	// the prompt size, not the name.
	if i := strings.LastIndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		s = s[:i]
	}
	// Vertex resource names: projects/…/publishers/google/models/gemini-2.5-pro.
	if strings.HasPrefix(s, "projects/") || strings.HasPrefix(s, "publishers/") {
		if i := strings.LastIndex(s, "/models/"); i >= 0 {
			s = s[i+len("/models/"):]
		}
	}
	for changed := true; changed; {
		changed = false
		if rest, ok := strings.CutPrefix(s, "openrouter/"); ok {
			s, changed = rest, true
			if _, model, ok := strings.Cut(s, "/"); ok {
				s = model // drop the vendor segment
			}
		}
		for _, p := range providerPrefixes {
			if rest, ok := strings.CutPrefix(s, p); ok && rest != "" {
				s, changed = rest, true
			}
		}
	}
	s, bedrock := stripBedrock(s)
	if i := strings.IndexByte(s, '@'); i > 0 {
		if v := s[i+1:]; allDigits(v) && v != "" {
			s = s[:i] + "-" + v // Vertex: claude-sonnet-4-5@20250929
		} else {
			s = s[:i] // "@default" and similar version aliases
		}
	}
	s = stripBedrockVersion(s, bedrock)
	if strings.HasPrefix(s, "claude-") {
		s = claudeDots(s)
	}
	return s
}

// stripBedrock removes "us.anthropic."-style prefixes and reports whether the
// name was in Bedrock form.
func stripBedrock(s string) (string, bool) {
	rest := s
	for _, r := range bedrockRegions {
		if t, ok := strings.CutPrefix(rest, r); ok {
			rest = t
			break
		}
	}
	for _, v := range bedrockVendors {
		if t, ok := strings.CutPrefix(rest, v); ok && t != "" {
			return t, true
		}
	}
	return s, false
}

// stripBedrockVersion removes "-v1:0" and ":0" suffixes anywhere, and a bare
// "-v1" only on Bedrock-form names ("deepseek-v3" must keep its "-v3").
func stripBedrockVersion(s string, bedrock bool) string {
	if i := strings.LastIndexByte(s, ':'); i > 0 && allDigits(s[i+1:]) && i+1 < len(s) {
		s = s[:i]
		bedrock = true // a ":N" revision is Bedrock's
	}
	if i := strings.LastIndex(s, "-v"); bedrock && i > 0 && i+2 < len(s) && allDigits(s[i+2:]) {
		s = s[:i]
	}
	return s
}

// claudeDots rewrites "claude-sonnet-4.5" and "claude-3.5-haiku" (OpenRouter
// style) into Anthropic's dashed ids.
func claudeDots(s string) string {
	b := []byte(s)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == '.' && isDigit(b[i-1]) && isDigit(b[i+1]) {
			b[i] = '-'
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// stripDate removes one release-date suffix: -YYYYMMDD, -YYYY-MM-DD, or
// -MMDD on gpt-* names (OpenAI's old style). Four digits elsewhere are not
// dates often enough (Mistral's -2411 is YYMM, xAI's -0309 is a release tag).
func stripDate(s string) string {
	if n := len(s); n > 9 && s[n-9] == '-' && allDigits(s[n-8:]) && validDate(s[n-8:n-4], s[n-4:n-2], s[n-2:]) {
		return s[:n-9]
	}
	if n := len(s); n > 11 && s[n-11] == '-' && s[n-6] == '-' && s[n-3] == '-' &&
		allDigits(s[n-10:n-6]) && allDigits(s[n-5:n-3]) && allDigits(s[n-2:]) &&
		validDate(s[n-10:n-6], s[n-5:n-3], s[n-2:]) {
		return s[:n-11]
	}
	if n := len(s); strings.HasPrefix(s, "gpt-") && n > 5 && s[n-5] == '-' && allDigits(s[n-4:]) &&
		validDate("2000", s[n-4:n-2], s[n-2:]) {
		return s[:n-5]
	}
	return s
}

// validDate checks a plausible release date (years 2000–2099).
func validDate(y, m, d string) bool {
	atoi := func(t string) int {
		v := 0
		for i := 0; i < len(t); i++ {
			v = v*10 + int(t[i]-'0')
		}
		return v
	}
	yy, mm, dd := atoi(y), atoi(m), atoi(d)
	return yy >= 2000 && yy <= 2099 && mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31
}
