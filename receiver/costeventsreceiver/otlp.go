package costeventsreceiver

import (
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/otlpconv"
	"github.com/llmcost/llmcost/internal/semconv"
)

// otlpResponse is ExportLogsServiceResponse in proto3 JSON. pdata's own
// marshaler writes an unset partialSuccess as {"partialSuccess":{}}; the
// OTLP answer to full success is {}.
type otlpResponse struct {
	PartialSuccess *otlpPartialSuccess `json:"partialSuccess,omitempty"`
}

// otlpPartialSuccess reports rejected model-call records. The count is an
// int64, which proto3 JSON writes as a string.
type otlpPartialSuccess struct {
	RejectedLogRecords string `json:"rejectedLogRecords"`
	ErrorMessage       string `json:"errorMessage"`
}

// otlpLogs is POST /v1/otlp/v1/logs: each model-call record of a coding
// agent's log export becomes one event on the batch path (same pipeline,
// pricing and dedup); every other record is discarded and not counted.
func (r *costReceiver) otlpLogs(w http.ResponseWriter, req *http.Request) error {
	projectID, body, err := r.otlpRequest(req)
	if err != nil {
		return err
	}
	if err := exportShape(body, otlpconv.LogsKey); err != nil {
		return err
	}
	var reasons []string
	err = r.cpuDo(req, func(leave func()) error {
		ld, err := otlpconv.DecodeJSON(body)
		if err != nil {
			return decodeError(err)
		}
		conv := otlpconv.Convert(ld, r.validator.Now())
		reasons = make([]string, 0, len(conv.Rejected))
		for _, rej := range conv.Rejected {
			reasons = append(reasons, rej.Reason)
		}
		if len(conv.Events) == 0 {
			return nil
		}
		res, err := r.consume(req.Context(), formatOTLP, agentLogs(conv.Events, projectID), leave)
		if err != nil {
			return err
		}
		for _, rej := range append(res.Rejections(), res.CallRejections()...) {
			reasons = append(reasons, rej.Reason)
		}
		r.set.Logger.Debug("OTLP logs ingested", zap.Int("events", len(conv.Events)),
			zap.Int64("stored", res.Stored.Load()), zap.Int64("duplicate", res.Duplicate.Load()),
			zap.Int("rejected", len(reasons)), zap.Int("discarded", conv.Discarded))
		return nil
	})
	if err != nil {
		return err
	}
	out := otlpResponse{}
	if len(reasons) > 0 {
		out.PartialSuccess = &otlpPartialSuccess{
			RejectedLogRecords: strconv.Itoa(len(reasons)),
			ErrorMessage:       rejectionSummary(reasons),
		}
	}
	return respond.JSON(w, http.StatusOK, out)
}

// otlpDiscard is POST /v1/otlp/v1/metrics and /v1/otlp/v1/traces: agents
// that export every signal to one base endpoint get a success, and the data
// is dropped. The body is still read, so the size limit holds.
func (r *costReceiver) otlpDiscard(key string) respond.Func {
	return func(w http.ResponseWriter, req *http.Request) error {
		_, body, err := r.otlpRequest(req)
		if err != nil {
			return err
		}
		if err := exportShape(body, key); err != nil {
			return err
		}
		return respond.JSON(w, http.StatusOK, otlpResponse{})
	}
}

// exportShape refuses a body that is not an export request ({"foo":1}),
// which the OTLP decoders would take as an export of nothing.
func exportShape(body []byte, key string) error {
	if err := otlpconv.CheckExport(body, key); err != nil {
		return apierr.Newf(apierr.BadRequest, "body: %v", err).
			WithHint("send an OTLP/HTTP JSON export request (protocol http/json), e.g. {\"" + key + "\": [...]}")
	}
	return nil
}

// otlpRequest checks what every OTLP route requires, in the order a client
// can fix it: the API key (checked by the route table), a JSON body, then
// the body itself.
func (r *costReceiver) otlpRequest(req *http.Request) (projectID string, body []byte, err error) {
	projectID = access.FromContext(req.Context()).ProjectID
	if err = otlpMediaType(req.Header.Get("Content-Type")); err != nil {
		return "", nil, err
	}
	body, err = readBody(req)
	return projectID, body, err
}

// otlpMediaType accepts OTLP/HTTP's JSON encoding only. A missing
// Content-Type is taken as JSON; protobuf, the SDKs' default, gets a 415
// that says how to switch.
func otlpMediaType(contentType string) error {
	if strings.TrimSpace(contentType) == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case err == nil && mt == "application/json":
		return nil
	case err == nil && (mt == "application/x-protobuf" || mt == "application/protobuf"):
		return apierr.New(apierr.UnsupportedMediaType, "Content-Type: OTLP/HTTP protobuf is not supported, only JSON").
			WithHint("set the exporter's protocol to http/json (e.g. OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=http/json), or put an OpenTelemetry Collector in front: see docs/agents.md")
	}
	return apierr.Newf(apierr.UnsupportedMediaType, "Content-Type: must be application/json, got %q", contentType)
}

// decodeError explains a body that is not an OTLP JSON logs export. The
// decoder's text is cut before its echo of the body's surroundings.
func decodeError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "otlpconv: decode OTLP JSON logs: ")
	if i := strings.Index(msg, ", bigger context"); i > 0 {
		msg = msg[:i]
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return apierr.Newf(apierr.BadRequest, "body: not an OTLP/HTTP JSON logs export (ExportLogsServiceRequest): %s", msg).
		WithHint("send the JSON encoding of OTLP (protocol http/json)")
}

// agentLogs puts converted agent events of one project into canonical
// records, the shape the batch path hands to the pipeline.
func agentLogs(events []otlpconv.Converted, projectID string) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr(semconv.ProjectID, projectID)
	records := rl.ScopeLogs().AppendEmpty().LogRecords()
	records.EnsureCapacity(len(events))
	for i := range events {
		ev := events[i].Event
		ev.ProjectID = projectID
		semconv.PutEvent(records.AppendEmpty(), &ev)
	}
	return ld
}

// rejectionSummary is partialSuccess.errorMessage: the count, then each kind
// of failure (a reason up to its parenthesised detail) with its count, most
// frequent first, ties in order of first appearance.
func rejectionSummary(reasons []string) string {
	counts := map[string]int{}
	var kinds []string
	for _, reason := range reasons {
		kind, _, _ := strings.Cut(reason, " (")
		if counts[kind] == 0 {
			kinds = append(kinds, kind)
		}
		counts[kind]++
	}
	sort.SliceStable(kinds, func(i, j int) bool { return counts[kinds[i]] > counts[kinds[j]] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s (%d)", k, counts[k])
	}
	noun := "records"
	if len(reasons) == 1 {
		noun = "record"
	}
	return fmt.Sprintf("%d model-call log %s rejected: %s", len(reasons), noun, strings.Join(parts, ", "))
}
