// Package otlpconv turns OpenTelemetry log records exported by coding agents
// (Claude Code, Codex, Gemini CLI / Qwen Code and GenAI semantic-convention
// producers) into canonical, unpriced LLM-call events.
//
// It works on plog.Logs from any source: our own OTLP/HTTP JSON endpoint
// (see DecodeJSON) or the stock OpenTelemetry Collector's otlp receiver.
// Only model-call records become events; every other record is discarded,
// and a model-call record that fails validation is rejected on its own
// without failing the rest of the batch.
package otlpconv

import (
	"fmt"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// Result is the outcome of converting one batch of logs.
type Result struct {
	// Events are the model calls found, in record order, without duplicates.
	Events []Converted
	// Rejected are model-call records that failed validation; their number
	// is what an OTLP partialSuccess.rejectedLogRecords reports.
	Rejected []Rejection
	// Discarded counts records that are not model calls, including
	// in-batch duplicates. They are deliberately not reported as rejected.
	Discarded int
}

// Converted is one event together with what the caller needs beside it.
type Converted struct {
	// Event is the canonical event; EventID holds the idempotency key.
	Event event.Event
	// Path locates the source record: resourceLogs[i].scopeLogs[j].logRecords[k].
	Path string
	// SourceEvent is the qualified event name, e.g. "claude_code.api_request".
	SourceEvent string
	// UserEmail is the producer's user.email, kept out of Event so that the
	// caller decides whether to store personal data.
	UserEmail string
	// IdempotencyMaterial is the text whose SHA-256 is Event.EventID.
	IdempotencyMaterial string
	// ErrorStatus is the HTTP/API status of a failed call, nil when not
	// sent; event.Event has no field for it.
	ErrorStatus *int64
}

// Rejection is a model-call record that could not be converted.
type Rejection struct {
	// Path locates the record: resourceLogs[i].scopeLogs[j].logRecords[k].
	Path string
	// Reason says what was wrong, e.g. "negative token count (input_tokens=-5)".
	Reason string
}

// Convert maps every log record in ld. now stands in for the timestamp of a
// record that carries none.
func Convert(ld plog.Logs, now time.Time) Result {
	c := converter{now: now, seen: map[string]bool{}}
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			c.scope(rl.Resource().Attributes(), sls.At(j), fmt.Sprintf("resourceLogs[%d].scopeLogs[%d]", i, j))
		}
	}
	return c.res
}

// DecodeJSON decodes an OTLP/HTTP JSON ExportLogsServiceRequest body. Like
// the Collector it accepts camelCase and snake_case keys, ignores unknown
// fields and reads 64-bit integers from strings or numbers.
func DecodeJSON(body []byte) (plog.Logs, error) {
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalJSON(body); err != nil {
		return plog.NewLogs(), fmt.Errorf("otlpconv: decode OTLP JSON logs: %w", err)
	}
	return req.Logs(), nil
}

// converter accumulates one batch's result and the keys already emitted.
type converter struct {
	now  time.Time
	seen map[string]bool
	res  Result
}

// scope converts the records of one scope.
func (c *converter) scope(res pcommon.Map, sl plog.ScopeLogs, prefix string) {
	name := sl.Scope().Name()
	lrs := sl.LogRecords()
	for k := 0; k < lrs.Len(); k++ {
		path := fmt.Sprintf("%s.logRecords[%d]", prefix, k)
		if name == codexTraceSafe {
			// Codex copies log_only records here; counting both double-counts.
			c.res.Discarded++
			continue
		}
		c.record(newRec(lrs.At(k), res, name, c.now), path)
	}
}

// record converts one record and files the outcome.
func (c *converter) record(r *rec, path string) {
	agent, m := agentFor(r.name, r.service, r.scope)
	if m == nil {
		c.res.Discarded++
		return
	}
	r.agent = agent
	call, err := m(r)
	switch {
	case err != nil:
		c.res.Rejected = append(c.res.Rejected, Rejection{Path: path, Reason: err.Error()})
	case call == nil:
		c.res.Discarded++
	default:
		out := r.convert(call)
		if err := storable(&out.Event, c.now); err != nil {
			c.res.Rejected = append(c.res.Rejected, Rejection{Path: path, Reason: err.Error()})
			return
		}
		if c.seen[out.Event.EventID] {
			// An exporter retry re-sent the record: emit it once.
			c.res.Discarded++
			return
		}
		c.seen[out.Event.EventID] = true
		out.Path = path
		c.res.Events = append(c.res.Events, out)
	}
}
