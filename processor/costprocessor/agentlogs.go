package costprocessor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/otlpconv"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/semconv"
)

// errNoProject refuses model calls that cannot be attributed. It is
// permanent: retrying the same export cannot succeed until the
// configuration changes.
var errNoProject = errors.New("cost processor: raw coding-agent logs arrived but project_id is not set; " +
	"set project_id in this cost processor's configuration to the project whose events these are")

// projectStore is what the start-up check needs of the costapi extension.
type projectStore interface {
	DB() *postgres.DB
}

// maxLoggedReasons bounds the rejection reasons written to one log line.
const maxLoggedReasons = 5

// checkProject fails start-up when project_id names no project, so a typo
// shows at once rather than as a failed write on every export.
func (p *costProcessor) checkProject(ctx context.Context, ext any) error {
	store, ok := ext.(projectStore)
	if p.cfg.ProjectID == "" || !ok || store.DB() == nil {
		return nil
	}
	_, err := store.DB().ProjectByID(ctx, p.cfg.ProjectID)
	switch {
	case err == nil:
		return nil
	case apierr.As(err).Code == apierr.NotFound:
		return fmt.Errorf("project_id: no project %s exists; create it first and copy its id", p.cfg.ProjectID)
	}
	return fmt.Errorf("project_id: looking up project %s: %w", p.cfg.ProjectID, err)
}

// normalise converts raw coding-agent log records (records that are not
// canonical, as the stock otlp receiver hands them over) into canonical
// call records of the configured project, so that the same export gives the
// same events whichever receiver took it. Other raw records are dropped;
// canonical records pass untouched. skip reports that nothing is left.
//
// Canonical records are trusted only from the costevents receiver, which
// marks its requests with an ingest result and stamps the project of the
// API key. Anywhere else they are treated as raw, so a client of a stock
// receiver cannot write into another project by sending llmcost.*
// attributes itself.
func (p *costProcessor) normalise(ctx context.Context, ld plog.Logs) (skip bool, err error) {
	raw := takeRaw(ld, ingest.FromContext(ctx) != nil)
	if raw.LogRecordCount() == 0 {
		return false, nil
	}
	conv := otlpconv.Convert(raw, time.Now())
	if len(conv.Events)+len(conv.Rejected) == 0 {
		return ld.LogRecordCount() == 0, nil
	}
	if p.cfg.ProjectID == "" {
		// The stock receivers do not log a permanent error; say it here so
		// the operator sees the misconfiguration, not only the agent.
		p.logger.Error(errNoProject.Error(), zap.Int("model_call_records", len(conv.Events)+len(conv.Rejected)))
		return false, consumererror.NewPermanent(errNoProject)
	}
	p.reportRejections(ctx, conv.Rejected)
	if len(conv.Events) > 0 {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr(semconv.ProjectID, p.cfg.ProjectID)
		records := rl.ScopeLogs().AppendEmpty().LogRecords()
		records.EnsureCapacity(len(conv.Events))
		for i := range conv.Events {
			ev := conv.Events[i].Event
			ev.ProjectID = p.cfg.ProjectID
			semconv.PutEvent(records.AppendEmpty(), &ev)
		}
	}
	return ld.LogRecordCount() == 0, nil
}

// takeRaw moves every record of ld that is not a trusted canonical record,
// with its resource and scope, into a new plog.Logs, and removes the scopes
// and resources it emptied.
func takeRaw(ld plog.Logs, trusted bool) plog.Logs {
	raw := plog.NewLogs()
	ld.ResourceLogs().RemoveIf(func(rl plog.ResourceLogs) bool {
		var dstRL plog.ResourceLogs
		movedRL := false
		rl.ScopeLogs().RemoveIf(func(sl plog.ScopeLogs) bool {
			var dst plog.LogRecordSlice
			moved := false
			sl.LogRecords().RemoveIf(func(lr plog.LogRecord) bool {
				if trusted && (semconv.IsCall(lr) || semconv.IsOutcome(lr)) {
					return false
				}
				if !movedRL {
					dstRL, movedRL = raw.ResourceLogs().AppendEmpty(), true
					rl.Resource().CopyTo(dstRL.Resource())
					dstRL.SetSchemaUrl(rl.SchemaUrl())
				}
				if !moved {
					dstSL := dstRL.ScopeLogs().AppendEmpty()
					sl.Scope().CopyTo(dstSL.Scope())
					dstSL.SetSchemaUrl(sl.SchemaUrl())
					dst, moved = dstSL.LogRecords(), true
				}
				lr.MoveTo(dst.AppendEmpty())
				return true
			})
			return moved && sl.LogRecords().Len() == 0
		})
		return movedRL && rl.ScopeLogs().Len() == 0
	})
	return raw
}

// reportRejections hands invalid model-call records to the request's
// result when our own receiver is waiting for one; behind a stock receiver
// there is no partial-success channel back, so they are logged.
func (p *costProcessor) reportRejections(ctx context.Context, rejected []otlpconv.Rejection) {
	if len(rejected) == 0 {
		return
	}
	if res := ingest.FromContext(ctx); res != nil {
		for _, r := range rejected {
			res.Reject(ingest.Rejection{Index: -1, Field: r.Path, Reason: r.Reason})
		}
		return
	}
	reasons := make([]string, 0, maxLoggedReasons)
	for _, r := range rejected[:min(len(rejected), maxLoggedReasons)] {
		reasons = append(reasons, r.Path+": "+r.Reason)
	}
	p.logger.Warn("cost processor rejected invalid model-call log records",
		zap.Int("rejected", len(rejected)), zap.Strings("first_reasons", reasons))
}
