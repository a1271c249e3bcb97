package otlpconv

import (
	"strconv"
	"strings"
)

// mapCodex maps the Codex CLI. Usage arrives on sse_event (or, defensively,
// websocket_event) with event.kind=response.completed; a successful
// api_request is discarded because its usage follows on that completion.
func mapCodex(r *rec) (*call, error) {
	switch r.name {
	case "codex.sse_event", "codex.websocket_event":
		return codexCompletion(r)
	case "codex.api_request":
		return codexFailedRequest(r)
	}
	return nil, nil
}

// codexCompletion maps a response.completed event: a success when it
// carries tokens, a failure when it carries only error.message.
func codexCompletion(r *rec) (*call, error) {
	if r.a.str("event.kind") != "response.completed" {
		return nil, nil
	}
	hasTokens := r.a.has("input_token_count", "output_token_count")
	if !hasTokens && r.a.str("error.message") == "" {
		return nil, nil
	}
	c, err := codexCall(r)
	if err != nil {
		return nil, err
	}
	c.success = hasTokens
	if !hasTokens {
		c.material = codexKey(r, "kind:response.completed", "error")
		return c, nil
	}
	// OpenAI counts cached tokens inside input and reasoning inside output.
	// tool_token_count is usage.total_tokens, not tool tokens: ignored.
	n := counter{a: r.a}
	c.input = n.get("input_token_count")
	c.output = n.get("output_token_count")
	c.cached = n.get("cached_token_count")
	c.cacheWrite = n.get("cache_write_token_count")
	c.reasoning = n.get("reasoning_token_count")
	if n.err != nil {
		return nil, n.err
	}
	tok := strings.Join([]string{itoa(c.input), itoa(c.output), itoa(c.cached), itoa(c.cacheWrite)}, "/")
	c.material = codexKey(r, "kind:response.completed", "tok:"+tok)
	return c, nil
}

// codexFailedRequest maps one failed HTTP attempt to the Responses API as a
// failure event; other endpoints (/models) and successes are discarded.
func codexFailedRequest(r *rec) (*call, error) {
	status := r.a.optInt("http.response.status_code")
	failed := (status != nil && *status >= 400) || r.a.str("error.message") != ""
	endpoint := r.a.str("endpoint")
	if !failed || (endpoint != "" && !strings.HasPrefix(endpoint, "/responses")) {
		return nil, nil
	}
	c, err := codexCall(r)
	if err != nil {
		return nil, err
	}
	c.status = status
	// Measured only up to the response headers, but it is what a failure has.
	c.latency = r.a.optInt("duration_ms")
	outcome := "error"
	if status != nil {
		outcome = "status:" + itoa(*status)
	}
	c.material = codexKey(r, "attempt:"+r.a.str("attempt"), outcome)
	return c, nil
}

// codexCall fills the fields every Codex event shares.
func codexCall(r *rec) (*call, error) {
	// Codex streams every Responses call (server-sent or websocket events).
	streaming := true
	c := &call{model: r.a.first("model", "slug"), streaming: &streaming}
	if c.model == "" {
		return nil, errNoModel
	}
	c.session = r.a.str("conversation.id")
	c.user = r.a.first("user.account_id", "user.email")
	return c, nil
}

// codexKey derives a key from producer-side values: Codex usage records
// carry no provider request id.
func codexKey(r *rec, tail ...string) string {
	parts := []string{"codex", r.name, "conv:" + r.a.str("conversation.id"), "ts:" + r.a.str("event.timestamp")}
	return key(append(parts, tail...)...)
}

// itoa formats an int64 in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
