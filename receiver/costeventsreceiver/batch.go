package costeventsreceiver

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/semconv"
)

type batchResult struct {
	Status           string             `json:"status"`
	EventsStored     int64              `json:"events_stored"`
	EventsReceived   int                `json:"events_received"`
	EventsRejected   int                `json:"events_rejected"`
	EventsDuplicate  int64              `json:"events_duplicate"`
	OutcomesRecorded int64              `json:"outcomes_recorded"`
	Rejected         []ingest.Rejection `json:"rejected"`
	// Warnings are notes on stored events (an unknown model, with the
	// catalogue's close names); an empty list when there are none.
	Warnings  []ingest.Warning `json:"warnings"`
	Timestamp string           `json:"timestamp"`
}

// batch is POST /v1/events/batch; the route table admits only an API key.
func (r *costReceiver) batch(w http.ResponseWriter, req *http.Request) error {
	projectID := access.FromContext(req.Context()).ProjectID
	body, err := readBody(req)
	if err != nil {
		return err
	}
	var b *ingest.Batch
	res := &ingest.Result{}
	err = r.cpuDo(req, func(leave func()) error {
		var err error
		if b, err = ingest.DecodeBatch(body, projectID, r.limits, r.validator); err != nil {
			return err
		}
		if len(b.Events)+len(b.Outcomes) > 0 {
			res, err = r.consume(req.Context(), formatBatch, toLogs(b), leave)
		}
		return err
	})
	if err != nil {
		return err
	}
	out := batchAnswer(b, res)
	if r.catalogue != nil {
		out.Warnings = append(out.Warnings, b.UnknownModels(r.catalogue())...)
	}
	if len(out.Rejected) > 0 {
		// The client's mistake, not the server's: one line at debug, no
		// stack trace, no values (they may be anything).
		first := out.Rejected[0]
		r.set.Logger.Debug("batch events rejected", zap.String("project_id", projectID),
			zap.Int("rejected", len(out.Rejected)), zap.Int("first_index", first.Index),
			zap.String("first_field", first.Field), zap.String("first_reason", first.Reason))
	}
	return respond.JSON(w, http.StatusOK, out)
}

// batchAnswer counts what the batch and the pipeline did with its items.
func batchAnswer(b *ingest.Batch, res *ingest.Result) batchResult {
	rejected := append(b.Rejections, res.Rejections()...)
	for _, rej := range res.CallRejections() {
		// The pipeline's records are b.Events in order: call n is the
		// request's event b.Index[n].
		if rej.Index >= 0 && rej.Index < len(b.Index) {
			rej.Index = b.Index[rej.Index]
		}
		rejected = append(rejected, rej)
	}

	out := batchResult{
		Status: "ok", EventsStored: res.Stored.Load(), EventsReceived: b.Received,
		EventsDuplicate: res.Duplicate.Load(), OutcomesRecorded: res.Outcomes.Load(),
		Rejected: rejected, Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
	}
	for _, rej := range rejected {
		if !strings.HasPrefix(rej.Field, "outcomes.") {
			out.EventsRejected++
		}
	}
	if len(rejected) > 0 {
		out.Status = "partial"
	}
	if out.Rejected == nil {
		out.Rejected = []ingest.Rejection{}
	}
	out.Warnings = []ingest.Warning{}
	return out
}

// readBody reads the (already gzip-decoded) body; the server's size limit
// surfaces here as a 413.
func readBody(req *http.Request) ([]byte, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, apierr.Newf(apierr.PayloadTooLarge, "request body exceeds %d bytes (after decompression)", tooBig.Limit)
		}
		return nil, apierr.Newf(apierr.BadRequest, "could not read the request body: %v", err)
	}
	return body, nil
}

// toLogs turns a validated batch into canonical pipeline records.
func toLogs(b *ingest.Batch) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr(semconv.ProjectID, b.ProjectID)
	records := rl.ScopeLogs().AppendEmpty().LogRecords()
	records.EnsureCapacity(len(b.Events) + len(b.Outcomes))
	for i := range b.Events {
		semconv.PutEvent(records.AppendEmpty(), &b.Events[i])
	}
	for _, o := range b.Outcomes {
		semconv.PutOutcome(records.AppendEmpty(), o)
	}
	return ld
}
