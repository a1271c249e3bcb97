package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/semconv"
)

// Limits bound one batch (docs/api.md "Event ingest").
type Limits struct {
	MaxEvents        int
	MaxOutcomes      int
	MaxMetadataBytes int
}

// DefaultLimits are the documented limits.
var DefaultLimits = Limits{MaxEvents: 1000, MaxOutcomes: 1000, MaxMetadataBytes: 16 << 10}

// Batch is a decoded, validated batch: the accepted events and outcomes and
// the rejections, indexed by position in the request.
type Batch struct {
	ProjectID string
	Received  int
	Events    []event.Event
	// Index is each accepted event's position in the request's events.
	Index      []int
	Outcomes   []semconv.Outcome
	Rejections []Rejection
}

type rawBatch struct {
	ProjectID *string           `json:"project_id"`
	Events    []json.RawMessage `json:"events"`
	Outcomes  []json.RawMessage `json:"outcomes"`
}

// DecodeBatch parses a batch body. Malformed JSON is a bad_request; a batch
// that breaks a whole-request rule is validation_failed; a bad event or
// outcome is only a rejection. projectID is the credential's project: every
// accepted event is stamped with it.
func DecodeBatch(body []byte, projectID string, lim Limits, v *Validator) (*Batch, error) {
	if !utf8.Valid(body) {
		return nil, apierr.New(apierr.BadRequest, "body is not valid UTF-8")
	}
	if first := firstByte(body); first != '{' && first != 0 {
		return nil, apierr.Field("body", "must be a JSON object {\"events\": [...]}, got "+jsonValueKind(first)).
			WithHint("wrap the events: {\"events\": [{...}, {...}]}")
	}
	raw, err := decodeEnvelope(body)
	if err != nil {
		return nil, err
	}
	b := &Batch{ProjectID: projectID, Received: len(raw.Events)}
	if raw.ProjectID != nil && access.CanonicalUUID(*raw.ProjectID) != projectID {
		return nil, apierr.New(apierr.Forbidden, "project_id does not match the API key's project").
			WithHint("send the project_id of the key's project, or omit it")
	}
	if len(raw.Events) > lim.MaxEvents {
		return nil, apierr.Field("events", fmt.Sprintf("at most %d events per batch, got %d", lim.MaxEvents, len(raw.Events))).
			WithHint("split the batch")
	}
	if len(raw.Outcomes) > lim.MaxOutcomes {
		return nil, apierr.Field("outcomes", fmt.Sprintf("at most %d outcomes per batch, got %d", lim.MaxOutcomes, len(raw.Outcomes)))
	}
	b.Events = make([]event.Event, 0, len(raw.Events))
	for i, msg := range raw.Events {
		ev, rej := v.Event(msg, lim)
		if rej != nil {
			rej.Index = i
			b.Rejections = append(b.Rejections, *rej)
			continue
		}
		ev.ProjectID = projectID
		b.Events = append(b.Events, ev)
		b.Index = append(b.Index, i)
	}
	for i, msg := range raw.Outcomes {
		o, rej := decodeOutcome(msg)
		if rej != nil {
			rej.Index = i
			rej.Field = "outcomes." + rej.Field
			b.Rejections = append(b.Rejections, *rej)
			continue
		}
		o.ProjectID = projectID
		b.Outcomes = append(b.Outcomes, o)
	}
	return b, nil
}

// decodeStrict decodes one JSON value and refuses trailing data.
func decodeStrict(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return apierr.Field(te.Field, "must be "+jsonKind(te.Type.Kind().String()))
		}
		return apierr.Newf(apierr.BadRequest, "malformed JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return apierr.New(apierr.BadRequest, "malformed JSON: data after the top-level value")
	}
	return nil
}

// firstByte is the first byte of body after JSON whitespace, 0 if none.
func firstByte(body []byte) byte {
	for _, c := range body {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// jsonValueKind names the kind of JSON value that starts with first.
func jsonValueKind(first byte) string {
	switch {
	case first == '[':
		return "an array"
	case first == '"':
		return "a string"
	case first == 't' || first == 'f':
		return "a boolean"
	case first == 'n':
		return "null"
	}
	return "a number or something that is not JSON"
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "ptr":
		return "a string"
	}
	return goKind
}

// knownOutcomeFields are the members of an outcome.
var knownOutcomeFields = map[string]bool{"trace_id": true, "success": true, "label": true}

func decodeOutcome(msg json.RawMessage) (semconv.Outcome, *Rejection) {
	var o semconv.Outcome
	fields := getMembers()
	defer putMembers(fields)
	if rej := objectFields(msg, fields); rej != nil {
		return o, rej
	}
	f := fieldReader{fields: fields}
	o.TraceID = f.str("trace_id", true, maxTraceID)
	o.Success = f.boolean("success", true, false)
	o.Label = f.str("label", false, maxName)
	if f.rej == nil {
		f.unknown(knownOutcomeFields)
	}
	return o, f.rej
}
