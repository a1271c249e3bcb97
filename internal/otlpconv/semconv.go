package otlpconv

import "strconv"

// usageKeys are the GenAI usage attributes whose presence marks a
// completed inference (current names and deprecated aliases).
var usageKeys = []string{
	"gen_ai.usage.input_tokens",
	"gen_ai.usage.output_tokens",
	"gen_ai.usage.prompt_tokens",
	"gen_ai.usage.completion_tokens",
	"gen_ai.usage.cache_read.input_tokens",
	"gen_ai.usage.cache_creation.input_tokens",
}

// mapSemconv maps gen_ai.client.inference.operation.details: a success with
// usage, a failure with error.type, and a request-only copy (neither) is
// discarded.
func mapSemconv(r *rec) (*call, error) {
	errType := r.a.str("error.type")
	if errType == "" && !r.a.has(usageKeys...) {
		return nil, nil
	}
	c := &call{success: errType == "", model: r.a.first("gen_ai.response.model", "gen_ai.request.model")}
	if c.model == "" {
		return nil, errNoModel
	}
	n := counter{a: r.a}
	c.input = n.first("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
	c.output = n.first("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
	c.cached = n.get("gen_ai.usage.cache_read.input_tokens")
	c.cacheWrite = n.get("gen_ai.usage.cache_creation.input_tokens")
	c.reasoning = n.get("gen_ai.usage.reasoning.output_tokens")
	if n.err != nil {
		return nil, n.err
	}
	if c.input < c.cached+c.cacheWrite {
		// The producer copied Anthropic's raw input, which excludes the
		// caches; the convention wants them inside input.
		c.input += c.cached + c.cacheWrite
	}
	c.session = r.a.first("gen_ai.conversation.id", "session.id")
	c.user = r.a.first("user.id", "enduser.id")
	c.material = semconvKey(r, c)
	return c, nil
}

// semconvKey uses the provider's response id when present; otherwise the
// conversation, the producer's record time and the model, plus the trace
// and span ids when the record has them.
func semconvKey(r *rec, c *call) string {
	if id := r.a.str("gen_ai.response.id"); id != "" {
		return key(r.agent, "resp:"+id)
	}
	parts := []string{r.agent, r.name, "conv:" + c.session, "t:" + recordTime(r), "model:" + c.model}
	if id := r.lr.TraceID().String(); id != "" {
		parts = append(parts, "trace:"+id)
	}
	if id := r.lr.SpanID().String(); id != "" {
		parts = append(parts, "span:"+id)
	}
	return key(parts...)
}

// recordTime is the producer-side time in nanoseconds: timeUnixNano, else
// observedTimeUnixNano, else event.timestamp. Never the receive time, so a
// re-sent batch keeps its keys.
func recordTime(r *rec) string {
	if t := r.lr.Timestamp(); t != 0 {
		return strconv.FormatUint(uint64(t), 10)
	}
	if t := r.lr.ObservedTimestamp(); t != 0 {
		return strconv.FormatUint(uint64(t), 10)
	}
	return r.a.str("event.timestamp")
}
