package costprocessor

import (
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/semconv"
)

func priced(t *testing.T, ev event.Event) event.Event {
	t.Helper()
	lr := plog.NewLogRecord()
	semconv.PutEvent(lr, &ev)
	price(pricing.Builtin(), lr)
	out, err := semconv.GetEvent(lr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func call(model string, in, cached, write, out int64) event.Event {
	return event.Event{ProjectID: "p", EventID: "e", AgentName: "a", Model: model, InputTokens: in,
		CachedTokens: cached, CacheWriteTokens: write, OutputTokens: out, Timestamp: time.Now()}
}

func TestPriceFromTheCatalogue(t *testing.T) {
	// 2000×$3/M + 6000×$0.30/M + 2000×$3.75/M + 1000×$15/M = $0.0303
	got := priced(t, call("anthropic/claude-sonnet-4-5-20250929", 10000, 6000, 2000, 1000))
	if !got.Priced || got.CostNano != 30_300_000 || got.CatalogueCostNano != 30_300_000 {
		t.Fatalf("%+v", got)
	}
	if got.PriceVersion != pricing.Builtin().Version() {
		t.Fatalf("price version %q", got.PriceVersion)
	}
}

func TestOneHourCacheWritesHaveTheirOwnRate(t *testing.T) {
	ev := call("claude-sonnet-4-5", 10000, 6000, 1000, 1000)
	ev.CacheWrite1hTokens = 1000
	// 2000×$3/M + 6000×$0.30/M + 1000×$3.75/M (5 min) + 1000×$6/M (1 h) + 1000×$15/M = $0.03255
	if got := priced(t, ev); got.CostNano != 32_550_000 {
		t.Fatalf("cost %d nano-USD, want 32550000", got.CostNano)
	}
}

func TestClientCostIsKeptBesideTheCatalogues(t *testing.T) {
	ev := call("claude-sonnet-4-5", 1000, 0, 0, 500)
	ev.CostNano, ev.CostProvided = 500_000_000, true
	got := priced(t, ev)
	if got.CostNano != 500_000_000 || got.CatalogueCostNano != 10_500_000 || !got.Priced {
		t.Fatalf("%+v", got)
	}
}

func TestUnknownModelIsUnpricedNotFree(t *testing.T) {
	got := priced(t, call("acme-llm-9000", 1000, 0, 0, 500))
	if got.Priced || got.CostNano != 0 || got.CatalogueCostNano != -1 {
		t.Fatalf("%+v", got)
	}
	ev := call("acme-llm-9000", 1000, 0, 0, 500)
	ev.CostNano, ev.CostProvided = 42, true
	if got := priced(t, ev); got.CostNano != 42 || got.Priced {
		t.Fatalf("client cost of an unknown model: %+v", got)
	}
}

func TestSubscriptionCallsArePricedLikeAny(t *testing.T) {
	ev := call("claude-sonnet-4-5", 1000, 0, 0, 500)
	ev.Billing = event.BillingSubscription
	if got := priced(t, ev); got.CostNano != 10_500_000 || got.Billing != event.BillingSubscription {
		t.Fatalf("%+v", got)
	}
}

func TestCacheSavingsAtTheCallsOwnRates(t *testing.T) {
	// claude-sonnet-4-5: input $3/M, read $0.30/M, 5-minute write $3.75/M,
	// 1-hour write $6/M. Read savings 6000 × $2.70/M = $0.0162; premium
	// 1000 × $0.75/M + 1000 × $3/M = $0.00375.
	ev := call("claude-sonnet-4-5", 10000, 6000, 1000, 1000)
	ev.CacheWrite1hTokens = 1000
	got := priced(t, ev)
	if got.ReadSavingsNano != 16_200_000 || got.WritePremiumNano != 3_750_000 {
		t.Fatalf("savings %d, premium %d", got.ReadSavingsNano, got.WritePremiumNano)
	}
	// A client-sent cost still gets the catalogue's savings.
	ev.CostNano, ev.CostProvided = 1, true
	if got := priced(t, ev); got.ReadSavingsNano != 16_200_000 || got.CostNano != 1 {
		t.Fatalf("client cost: %+v", got)
	}
	// An unknown model saves nothing, whatever it was sent with.
	unknown := call("acme-llm-9000", 10000, 6000, 1000, 1000)
	unknown.ReadSavingsNano = 99
	if got := priced(t, unknown); got.ReadSavingsNano != 0 || got.WritePremiumNano != 0 {
		t.Fatalf("unknown model: %+v", got)
	}
}
