package costeventsreceiver

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/hostext"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/otlpconv"
	"github.com/llmcost/llmcost/internal/pricing"
)

// apiHost is what the receiver needs of the costapi extension: the slots
// its route table declares for the pipeline.
type apiHost interface {
	Fill(slot hostext.Slot, h respond.Func) (release func(), err error)
	// Catalogue is the price catalogue in force, for the batch's warnings
	// about unknown models.
	Catalogue() *pricing.Catalogue
}

type costReceiver struct {
	cfg       *Config
	set       receiver.Settings
	next      consumer.Logs
	limits    ingest.Limits
	validator *ingest.Validator
	release   []func()
	catalogue func() *pricing.Catalogue
	// inflight counts requests inside a slot handler: Shutdown waits for
	// them, so a batch being stored finishes before the exporter stops.
	// A read lock per request; Shutdown takes the write lock once, which
	// waits for every holder (a WaitGroup may not see Add race with Wait).
	inflight sync.RWMutex
	// cpu admits one fewer request than there are processors to the
	// CPU-bound part of ingest, so reads keep a processor.
	cpu *ingest.CPUGate
	// obs records each pipeline call as the collector's receivers do: a
	// span, and the otelcol_receiver_accepted/refused_log_records counts.
	obs *receiverhelper.ObsReport
}

// The formats of the receiver's pipeline calls, the "format" attribute of
// their spans: the batch endpoint's body and OTLP/HTTP JSON logs.
const (
	formatBatch = "events_json"
	formatOTLP  = "otlp_json"
)

// transport is the "transport" attribute of the receiver's telemetry.
const transport = "http"

func newReceiver(cfg *Config, set receiver.Settings, next consumer.Logs) (*costReceiver, error) {
	obs, err := receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{
		ReceiverID: set.ID, Transport: transport, ReceiverCreateSettings: set,
	})
	if err != nil {
		return nil, err
	}
	gate := ingest.NewCPUGate(0)
	gate.Nice = cfg.DecodeNice
	return &costReceiver{
		cfg: cfg, set: set, next: next,
		limits: ingest.Limits{MaxEvents: cfg.MaxEventsPerBatch, MaxOutcomes: cfg.MaxOutcomesPerBatch,
			MaxMetadataBytes: cfg.MaxMetadataBytes},
		validator: &ingest.Validator{Now: time.Now},
		cpu:       gate,
		obs:       obs,
	}, nil
}

// slots are the route-table slots the receiver serves.
func (r *costReceiver) slots() map[hostext.Slot]respond.Func {
	return map[hostext.Slot]respond.Func{
		hostext.SlotEventsBatch: r.batch,
		hostext.SlotOTLPLogs:    r.otlpLogs,
		hostext.SlotOTLPMetrics: r.otlpDiscard(otlpconv.MetricsKey),
		hostext.SlotOTLPTraces:  r.otlpDiscard(otlpconv.TracesKey),
	}
}

// Start fills the ingest slots of the extension's route table.
func (r *costReceiver) Start(_ context.Context, host component.Host) error {
	api, err := hostext.Lookup[apiHost](host, r.cfg.API, "the API server")
	if err != nil {
		return err
	}
	r.catalogue = api.Catalogue
	for slot, h := range r.slots() {
		release, err := api.Fill(slot, r.counted(h))
		if err != nil {
			_ = r.Shutdown(context.Background())
			return err
		}
		r.release = append(r.release, release)
	}
	return nil
}

// counted runs h as one of the in-flight requests Shutdown waits for.
func (r *costReceiver) counted(h respond.Func) respond.Func {
	return func(w http.ResponseWriter, req *http.Request) error {
		r.inflight.RLock()
		defer r.inflight.RUnlock()
		return h(w, req)
	}
}

// Shutdown empties the slots (until another receiver fills them, they
// answer 503), then waits, up to ctx, for requests already in a handler:
// the processor and exporter stop after the receiver, and a batch cut off
// halfway would be answered 503 although part of it was stored.
func (r *costReceiver) Shutdown(ctx context.Context) error {
	for _, release := range r.release {
		release()
	}
	r.release = nil
	done := make(chan struct{})
	go func() {
		r.inflight.Lock()
		// The write lock is taken only to wait until every handler
		// holding a read lock has returned.
		//lint:ignore SA2001 an empty critical section is the point here
		r.inflight.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cpuDo runs a request's CPU-bound part in a slot of the CPU gate, at its
// priority; a client that left while waiting for a slot is answered 503
// (it is gone; the status only shows in the log).
func (r *costReceiver) cpuDo(req *http.Request, fn func(leave func()) error) error {
	entered := false
	err := r.cpu.Do(req.Context(), func(leave func()) error {
		entered = true
		return fn(leave)
	})
	if err != nil && !entered {
		return apierr.Unavailablef(err, "the request ended while waiting to be decoded")
	}
	return err
}

// consume runs ld, a request's records in format, through the pipeline
// and returns the filled result; it calls leaveCPU when the exporter starts
// writing. It refuses to report success when not exactly one exporter
// filled the result: an asynchronous pipeline (batch processor, sending
// queue) would otherwise make every count a guess.
//
// The call is one receive operation of the receiver's ObsReport: its
// records count as accepted when the pipeline takes them and as refused
// when it fails, as in the collector's own receivers. Items the request's
// validation rejected never reach the pipeline (the answer lists them),
// and records the pipeline drops one by one count as the processor's.
func (r *costReceiver) consume(ctx context.Context, format string, ld plog.Logs, leaveCPU func()) (*ingest.Result, error) {
	res := &ingest.Result{}
	res.OnWriting(leaveCPU)
	records := ld.LogRecordCount() // before the processor changes ld
	ctx = r.obs.StartLogsOp(ctx)
	err := r.next.ConsumeLogs(ingest.NewContext(ctx, res), ld)
	r.obs.EndLogsOp(ctx, format, records, err)
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
	return apierr.Wrap(err, apierr.Internal, "internal error")
}
