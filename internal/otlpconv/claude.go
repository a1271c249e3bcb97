package otlpconv

import "strings"

// mapClaude maps Claude Code's api_request (success) and api_error
// (failure, logged once after the retries). Everything else is discarded,
// notably api_retries_exhausted, the companion of the final api_error, and
// api_refusal and assistant_response, whose usage is on api_request.
func mapClaude(r *rec) (*call, error) {
	bare := strings.TrimPrefix(r.name, "claude_code.")
	if bare != "api_request" && bare != "api_error" {
		return nil, nil
	}
	c := &call{success: bare == "api_request", model: r.a.str("model")}
	if c.model == "" {
		return nil, errNoModel
	}
	// Anthropic's input_tokens excludes the caches; ours is the whole prompt.
	n := counter{a: r.a}
	input := n.get("input_tokens")
	c.cached = n.get("cache_read_tokens")
	c.cacheWrite = n.get("cache_creation_tokens")
	c.output = n.get("output_tokens")
	if n.err != nil {
		return nil, n.err
	}
	c.input = input + c.cached + c.cacheWrite
	var err error
	if c.costNano, c.costProvided, err = r.a.cost("cost_usd"); err != nil {
		return nil, err
	}
	c.latency = r.a.optInt("duration_ms")
	c.status = r.a.optInt("status_code")
	c.session = r.a.str("session.id")
	c.user = r.a.first("user.account_uuid", "user.id")
	c.material = claudeKey(r, bare)
	return c, nil
}

// claudeKey prefers Anthropic's request id. Without it, event.sequence
// restarts at 0 in every process, so the producer's timestamp is included
// to keep resumed sessions apart.
func claudeKey(r *rec, bare string) string {
	if id := r.a.str("request_id"); id != "" {
		return key("claude-code", bare, "req:"+id)
	}
	return key("claude-code", bare,
		"sess:"+r.a.str("session.id"),
		"ts:"+r.a.str("event.timestamp"),
		"seq:"+r.a.str("event.sequence"))
}

// mapGemini maps Gemini CLI and Qwen Code (a fork with the same attributes):
// api_response is a success, api_error a failure; api_request is only the
// start of a call.
func mapGemini(r *rec) (*call, error) {
	kind := r.name[strings.IndexByte(r.name, '.')+1:]
	if kind != "api_response" && kind != "api_error" {
		return nil, nil
	}
	c := &call{success: kind == "api_response", model: r.a.first("model", "model_name")}
	if c.model == "" {
		return nil, errNoModel
	}
	// Gemini's prompt count already includes the cache, but the tool-use
	// prompt and the thoughts are separate counters.
	n := counter{a: r.a}
	input := n.get("input_token_count")
	tool := n.get("tool_token_count")
	c.cached = n.get("cached_content_token_count")
	output := n.get("output_token_count")
	c.reasoning = n.get("thoughts_token_count")
	if n.err != nil {
		return nil, n.err
	}
	c.input = input + tool
	c.output = output + c.reasoning
	c.latency = r.a.optInt("duration_ms")
	c.status = r.a.optInt("status_code", "http.status_code")
	c.session = r.a.str("session.id")
	c.user = r.a.first("user.email", "installation.id")
	c.material = geminiKey(r, c.model)
	return c, nil
}

// geminiKey uses the response id when a build sends one, else the
// producer-side session, prompt and timestamp.
func geminiKey(r *rec, model string) string {
	if id := r.a.first("response_id", "gen_ai.response.id"); id != "" {
		return key(r.agent, r.name, "resp:"+id)
	}
	return key(r.agent, r.name,
		"sess:"+r.a.str("session.id"),
		"prompt:"+r.a.str("prompt_id"),
		"ts:"+r.a.str("event.timestamp"),
		"model:"+model)
}
