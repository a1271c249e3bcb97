package costprocessor

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/hostext"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/semconv"
)

// catalogueSource is what the processor needs of the costapi extension.
type catalogueSource interface {
	Catalogue() *pricing.Catalogue
}

type costProcessor struct {
	cfg    *Config
	logger *zap.Logger
	src    catalogueSource
}

func (p *costProcessor) start(ctx context.Context, host component.Host) error {
	src, err := hostext.Lookup[catalogueSource](host, p.cfg.API, "a price catalogue")
	if err != nil {
		return err
	}
	p.src = src
	return p.checkProject(ctx, src)
}

// processLogs turns raw agent logs into call records, then prices every
// call record in place. The catalogue is read once per request, so one
// request is priced by one catalogue version.
func (p *costProcessor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	switch skip, err := p.normalise(ctx, ld); {
	case err != nil:
		return ld, err
	case skip:
		return ld, processorhelper.ErrSkipProcessingData
	}
	cat := p.src.Catalogue()
	res := ingest.FromContext(ctx)
	call := 0
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			sls.At(j).LogRecords().RemoveIf(func(lr plog.LogRecord) bool {
				if !semconv.IsCall(lr) {
					return false
				}
				n := call
				call++
				err := price(cat, lr)
				if err == nil {
					return false
				}
				id, _ := lr.Attributes().Get(semconv.EventID)
				if res != nil {
					res.RejectCall(n, ingest.Rejection{EventID: id.Str(), Field: "cost", Reason: err.Error()})
				} else {
					// Behind the stock OTLP receiver no answer carries it.
					p.logger.Warn("call refused: beyond the per-call bounds", zap.String("event_id", id.Str()), zap.Error(err))
				}
				return true
			})
		}
	}
	return ld, nil
}

// price sets cost, catalogue cost, priced, price version, price period and
// the cache savings on one record, at the rates in force at the call's
// timestamp (a dated price change or a peak hour applies to the calls made
// then, whenever they arrive). Savings use the catalogue's rates even when
// the client sent its own cost: the cache report measures against the
// catalogue in force when the call was stored. A call whose price or
// savings are beyond the per-call bounds (pricing.Breakdown.Check) is an
// error: the caller drops it and reports it, it is never clamped.
func price(cat *pricing.Catalogue, lr plog.LogRecord) error {
	a := lr.Attributes()
	get := func(key string) int64 {
		v, _ := a.Get(key)
		return v.Int()
	}
	model, _ := a.Get(semconv.Model)
	provided, _ := a.Get(semconv.CostProvided)
	entry, ok := cat.Lookup(model.Str())
	a.PutBool(semconv.Priced, ok)
	a.PutStr(semconv.PriceVersion, cat.Version())
	a.PutInt(semconv.ReadSavingsNano, 0)
	a.PutInt(semconv.WritePremiumNano, 0)
	if !ok {
		a.PutInt(semconv.CatalogueCostNano, -1)
		if !provided.Bool() {
			a.PutInt(semconv.CostNano, 0)
		}
		return nil
	}
	u := pricing.Usage{
		Input: get(semconv.InputTokens), Output: get(semconv.OutputTokens),
		Cached: get(semconv.CachedTokens), CacheWrite: get(semconv.CacheWriteTokens),
		CacheWrite1h: get(semconv.CacheWrite1h),
	}
	at := lr.Timestamp().AsTime()
	if lr.Timestamp() == 0 {
		at = time.Now()
	}
	entry, period := entry.At(at)
	if period != "" {
		a.PutStr(semconv.PricePeriod, period)
	}
	b := entry.Price(u)
	sv := entry.Savings(u)
	if err := b.Check(); err != nil {
		return err
	}
	if err := sv.Check(); err != nil {
		return err
	}
	a.PutInt(semconv.CatalogueCostNano, b.Total)
	a.PutInt(semconv.ReadSavingsNano, sv.Read)
	a.PutInt(semconv.WritePremiumNano, sv.WritePremium)
	if !provided.Bool() {
		a.PutInt(semconv.CostNano, b.Total)
	}
	return nil
}
