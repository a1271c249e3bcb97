package costeventsreceiver

import (
	"context"
	"errors"
	"net/http"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/hostext"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/postgres"
)

// apiHost is what the receiver needs of the costapi extension.
type apiHost interface {
	Handle(pattern string, h http.Handler) (func(), error)
	DB() *postgres.DB
}

type costReceiver struct {
	cfg        *Config
	set        receiver.Settings
	next       consumer.Logs
	limits     ingest.Limits
	validator  *ingest.Validator
	api        apiHost
	unregister []func()
}

func newReceiver(cfg *Config, set receiver.Settings, next consumer.Logs) *costReceiver {
	return &costReceiver{
		cfg: cfg, set: set, next: next,
		limits: ingest.Limits{MaxEvents: cfg.MaxEventsPerBatch, MaxOutcomes: cfg.MaxOutcomesPerBatch,
			MaxMetadataBytes: cfg.MaxMetadataBytes},
		validator: &ingest.Validator{Now: time.Now},
	}
}

// Start mounts the ingest routes on the extension's server.
func (r *costReceiver) Start(_ context.Context, host component.Host) error {
	api, err := hostext.Lookup[apiHost](host, r.cfg.API, "the API server and store")
	if err != nil {
		return err
	}
	r.api = api
	for pattern, h := range map[string]http.HandlerFunc{
		"POST /v1/events/batch":   r.batch,
		"GET /v1/events":          r.list,
		"POST " + otlpLogsPath:    r.otlpLogs,
		"POST " + otlpMetricsPath: r.otlpDiscard,
		"POST " + otlpTracesPath:  r.otlpDiscard,
	} {
		unregister, err := api.Handle(pattern, h)
		if err != nil {
			_ = r.Shutdown(context.Background())
			return err
		}
		r.unregister = append(r.unregister, unregister)
	}
	return nil
}

// Shutdown removes the routes.
func (r *costReceiver) Shutdown(context.Context) error {
	for _, u := range r.unregister {
		u()
	}
	r.unregister = nil
	return nil
}

// consume runs ld through the pipeline and returns the filled result. It
// refuses to report success when not exactly one exporter filled the result:
// an asynchronous pipeline (batch processor, sending queue) would otherwise
// make every count a guess.
func (r *costReceiver) consume(ctx context.Context, ld plog.Logs) (*ingest.Result, error) {
	res := &ingest.Result{}
	err := r.next.ConsumeLogs(ingest.NewContext(ctx, res), ld)
	if err != nil {
		return nil, pipelineError(err)
	}
	if res.Fills() != 1 {
		r.set.Logger.Error("the pipeline did not store synchronously: check that no batch processor or sending_queue is configured",
			zap.Int("exporters_that_filled_the_result", res.Fills()))
		return nil, apierr.New(apierr.Internal, "ingest pipeline misconfigured")
	}
	return res, nil
}

// pipelineError maps a pipeline failure to the API's error: a domain error
// as it is, anything else by the collector's status rules, where a retryable
// failure is 503 and never 500.
func pipelineError(err error) error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	if consumererror.ToHTTPStatus(err) == http.StatusServiceUnavailable || !consumererror.IsPermanent(err) {
		return apierr.Unavailablef(err, "storage is unavailable")
	}
	return &apierr.Error{Code: apierr.Internal, Message: "internal error", Cause: err}
}
