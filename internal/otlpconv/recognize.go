package otlpconv

import (
	"regexp"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// Names and scopes the recognition rules (§5) depend on.
const (
	semconvEvent   = "gen_ai.client.inference.operation.details"
	claudeService  = "claude-code"
	claudeScope    = "com.anthropic.claude_code.events"
	codexTraceSafe = "codex_otel.trace_safe"
)

var (
	// callsiteRE matches the Rust tracing bridge's eventName, a source
	// location such as "event codex-rs/otel/src/…/session_telemetry.rs:1012".
	callsiteRE = regexp.MustCompile(`^event .+:\d+$`)
	// identRE accepts dotted identifiers like "claude_code.api_request" and
	// rejects prose bodies like Gemini's "API response from gemini-2.5-pro.".
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$`)
)

// mapper turns a recognised record into a call. It returns (nil, nil) for a
// record that is not billable and an error for an invalid model call.
type mapper func(r *rec) (*call, error)

// agentFor maps the event namespace to the agent and its mapper. The
// namespace wins over service.name, which users can override.
func agentFor(name, service, scope string) (string, mapper) {
	switch {
	case strings.HasPrefix(name, "claude_code."):
		return "claude-code", mapClaude
	case strings.HasPrefix(name, "codex."):
		return "codex", mapCodex
	case strings.HasPrefix(name, "gemini_cli."):
		return "gemini-cli", mapGemini
	case strings.HasPrefix(name, "qwen-code."), strings.HasPrefix(name, "qwen_code."):
		return "qwen-code", mapGemini
	case name == semconvEvent && !geminiFamily(service, scope):
		return semconvAgent(service), mapSemconv
	}
	// Unknown names are never guessed from attributes that look right.
	return "", nil
}

// geminiFamily reports a Gemini CLI or Qwen Code resource, whose GenAI
// events duplicate their own api_request/api_response/api_error records.
func geminiFamily(service, scope string) bool {
	switch service {
	case "gemini-cli", "qwen-code":
		return true
	}
	return scope == "gemini-cli" || scope == "qwen-code"
}

// semconvAgent names a GenAI semconv producer after its service.
func semconvAgent(service string) string {
	if service == "" {
		return "unknown_service"
	}
	return service
}

// eventName works out the record's event name (§5): eventName unless it is a
// Rust callsite, else the event.name attribute, else an identifier body.
// Claude Code's bare event.name ("api_request") is qualified by its body or,
// without one, by the Claude Code resource or scope.
func eventName(lr plog.LogRecord, service, scope string) string {
	name := lr.EventName()
	if callsiteRE.MatchString(name) {
		name = ""
	}
	if name == "" {
		// Record only: an event.name on the resource would name every record.
		if v, ok := lr.Attributes().Get("event.name"); ok && v.Type() == pcommon.ValueTypeStr {
			name = strings.TrimSpace(v.Str())
		}
	}
	body := bodyIdent(lr.Body())
	switch {
	case name == "":
		return body
	case strings.Contains(name, "."):
		return name
	case strings.HasSuffix(body, "."+name):
		return body
	case service == claudeService || scope == claudeScope:
		return "claude_code." + name
	}
	return name
}

// bodyIdent returns the body when it is a string that looks like an
// identifier, else "".
func bodyIdent(body pcommon.Value) string {
	if body.Type() != pcommon.ValueTypeStr {
		return ""
	}
	s := strings.TrimSpace(body.Str())
	if len(s) > 128 || !identRE.MatchString(s) {
		return ""
	}
	return s
}
