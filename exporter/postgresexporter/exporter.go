package postgresexporter

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/hostext"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/semconv"
)

// storeSource is what the exporter needs of the costapi extension.
type storeSource interface {
	DB() *postgres.DB
}

type pgExporter struct {
	cfg *Config
	src storeSource
}

func (e *pgExporter) start(_ context.Context, host component.Host) error {
	src, err := hostext.Lookup[storeSource](host, e.cfg.API, "a store")
	e.src = src
	return err
}

// push writes one request's records and fills its result. Non-canonical
// records are skipped: only the processor decides what becomes an event.
func (e *pgExporter) push(ctx context.Context, ld plog.Logs) error {
	var events []event.Event
	var outcomes []semconv.Outcome
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			records := sls.At(j).LogRecords()
			for k := 0; k < records.Len(); k++ {
				lr := records.At(k)
				switch {
				case semconv.IsCall(lr):
					ev, err := semconv.GetEvent(lr)
					if err != nil {
						return consumererror.NewPermanent(err)
					}
					events = append(events, ev)
				case semconv.IsOutcome(lr):
					outcomes = append(outcomes, semconv.GetOutcome(lr))
				}
			}
		}
	}
	if r := ingest.FromContext(ctx); r != nil {
		r.Writing()
	}
	res, err := e.src.DB().Write(ctx, events, outcomes)
	if err != nil {
		if apierr.As(err).Code == apierr.Unavailable {
			return consumererror.NewRetryableError(err)
		}
		return consumererror.NewPermanent(err)
	}
	if r := ingest.FromContext(ctx); r != nil {
		r.Fill(res.Stored, res.Duplicate, res.Outcomes)
	}
	return nil
}
