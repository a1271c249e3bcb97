package otlpconv

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/semconv"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// Resource attributes through which an operator configures a source.
const (
	attrAgentName = "llmcost.agent_name"
	attrBilling   = "llmcost.billing"
)

// metadataKeys is the allow-list of tags copied into Event.Metadata. It
// holds organisational tags only: never prompts, tool payloads or e-mail.
var metadataKeys = []string{
	"organization.id",
	"team.id",
	"cost_center",
	"terminal.type",
	"app.version",
	"deployment.environment",
	"deployment.environment.name",
}

// maxTagLen caps a tag value so that a misused attribute cannot smuggle a
// large payload into Metadata.
const maxTagLen = 256

// rec is one log record in context, as the mappers see it.
type rec struct {
	lr      plog.LogRecord
	a       attrs
	name    string // qualified event name
	service string // resource service.name
	scope   string // instrumentation scope name
	agent   string // agent detected from the event namespace
	now     time.Time
}

// call is what a mapper extracts from a model-call record.
type call struct {
	model                                        string
	input, output, cached, cacheWrite, reasoning int64
	costNano                                     int64
	costProvided, success                        bool
	streaming                                    *bool // nil: the agent does not say
	status, latency                              *int64
	session, user, material                      string
}

// newRec gathers the context every mapper needs.
func newRec(lr plog.LogRecord, res pcommon.Map, scope string, now time.Time) *rec {
	service := ""
	if v, ok := res.Get("service.name"); ok {
		service = v.AsString()
	}
	return &rec{
		lr:      lr,
		a:       attrs{rec: lr.Attributes(), res: res},
		name:    eventName(lr, service, scope),
		service: service,
		scope:   scope,
		now:     now,
	}
}

// convert builds the canonical event from a mapped call.
func (r *rec) convert(c *call) Converted {
	agentName := r.agent
	if v, ok := r.a.res.Get(attrAgentName); ok && v.AsString() != "" {
		agentName = v.AsString()
	}
	billing := event.BillingAPI
	if v, ok := r.a.res.Get(attrBilling); ok && v.AsString() == event.BillingSubscription {
		billing = event.BillingSubscription
	}
	if c.success {
		c.status = nil // a success's status (Gemini sends 200) is no error status
	}
	sum := sha256.Sum256([]byte(c.material))
	ev := event.Event{
		EventID:          hex.EncodeToString(sum[:]),
		AgentName:        agentName,
		Model:            c.model,
		InputTokens:      c.input,
		OutputTokens:     c.output,
		CachedTokens:     c.cached,
		CacheWriteTokens: c.cacheWrite,
		TotalTokens:      c.input + c.output,
		ReasoningTokens:  c.reasoning,
		CostNano:         c.costNano,
		CostProvided:     c.costProvided,
		LatencyMS:        c.latency,
		Success:          c.success,
		Error:            r.failure(c),
		Streaming:        c.streaming,
		Timestamp:        r.timestamp(),
		TraceID:          r.lr.TraceID().String(),
		SpanID:           r.lr.SpanID().String(),
		UserID:           c.user,
		SessionID:        c.session,
		RequestHash:      r.a.str(semconv.RequestHash),
		Billing:          billing,
		Source:           "otlp:" + r.agent,
		Metadata:         r.metadata(),
	}
	return Converted{
		Event:               ev,
		SourceEvent:         r.name,
		UserEmail:           r.a.str("user.email"),
		IdempotencyMaterial: c.material,
		ErrorStatus:         c.status,
	}
}

// failure describes a failed call by its error type or status only: error
// messages are free text and may echo request content.
func (r *rec) failure(c *call) string {
	switch {
	case c.success:
		return ""
	case r.a.str("error.type") != "":
		return r.a.str("error.type")
	case c.status != nil:
		return "status " + strconv.FormatInt(*c.status, 10)
	}
	return "error"
}

// timestamp follows logs.proto: timeUnixNano when non-zero, else
// observedTimeUnixNano (Codex sends time 0), else the producer's
// event.timestamp, else the receive time.
func (r *rec) timestamp() time.Time {
	if t := r.lr.Timestamp(); t != 0 {
		return t.AsTime()
	}
	if t := r.lr.ObservedTimestamp(); t != 0 {
		return t.AsTime()
	}
	if t, err := time.Parse(time.RFC3339Nano, r.a.str("event.timestamp")); err == nil {
		return t.UTC()
	}
	return r.now.UTC()
}

// metadata returns the allow-listed tags as a JSON object, nil when none.
func (r *rec) metadata() []byte {
	tags := map[string]string{}
	for _, k := range metadataKeys {
		if v := r.a.str(k); v != "" && len(v) <= maxTagLen && storableText(v) {
			tags[k] = v
		}
	}
	// Codex sends its [otel] environment as the resource attribute env:
	// it is the deployment.environment tag the docs promise.
	if _, set := tags["deployment.environment"]; !set && r.agent == "codex" {
		if v, ok := r.a.res.Get("env"); ok && v.Str() != "" && len(v.Str()) <= maxTagLen && storableText(v.Str()) {
			tags["deployment.environment"] = v.Str()
		}
	}
	r.chargebackTags(tags)
	if len(tags) == 0 {
		return nil
	}
	b, _ := json.Marshal(tags) // a map of strings always marshals
	return b
}

// attrTagPrefix names a chargeback tag in the service's namespace:
// llmcost.tag.team=payments is the call's metadata key team
// (docs/tags.md), which the project's declared keys count.
const attrTagPrefix = "llmcost.tag."

// chargebackTags adds the llmcost.tag.<key> attributes of the record and
// its resource to tags under <key>, the record's value winning, as a
// batch call's metadata carries them. Keys that do not follow the tag key
// rule are left out (no declared key could name them); values are checked
// by the rollups, which count a bad one as (invalid).
func (r *rec) chargebackTags(tags map[string]string) {
	add := func(k string, _ pcommon.Value) bool {
		key, ok := strings.CutPrefix(k, attrTagPrefix)
		if !ok || !tagKeyOK(key) {
			return true
		}
		if v := r.a.str(k); v != "" && len(v) <= maxTagLen && storableText(v) {
			tags[key] = v
		}
		return true
	}
	r.a.res.Range(add)
	r.a.rec.Range(add)
}

// tagKeyOK is the tag key rule, ^[a-z][a-z0-9_]{0,31}$.
func tagKeyOK(k string) bool {
	if k == "" || len(k) > 32 || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range []byte(k) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// key joins idempotency-material parts with "|" after the "v1" version tag.
func key(parts ...string) string {
	return "v1|" + strings.Join(parts, "|")
}
