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
	if err := price(pricing.Builtin(), lr); err != nil {
		t.Fatal(err)
	}
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

// A call is priced at the rates in force at its own timestamp: before and
// after a dated price change, and in and out of DeepSeek's peak hours (the
// period that priced it is stamped on the event).
func TestPriceAtTheCallsTimestamp(t *testing.T) {
	at := func(model string, ts time.Time) event.Event {
		ev := call(model, 1_000_000, 0, 0, 100_000)
		ev.Timestamp = ts
		return priced(t, ev)
	}
	// o3: $10/$40 until 2025-06-09, $2/$8 from 2025-06-10.
	before := at("o3", time.Date(2025, 6, 9, 12, 0, 0, 0, time.UTC))
	after := at("o3", time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC))
	if before.CostNano != 14_000_000_000 || after.CostNano != 2_800_000_000 ||
		before.PricePeriod != pricing.BasePeriod || after.PricePeriod != "2025-06-10T00:00:00Z.." {
		t.Errorf("o3 before %d (%s), after %d (%s)", before.CostNano, before.PricePeriod, after.CostNano, after.PricePeriod)
	}
	// deepseek-flash on a Monday: 02:00 UTC is peak ($0.30/$1.20), 14:00
	// off-peak ($0.15/$0.60).
	peak := at("deepseek-chat", time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC))
	off := at("deepseek-chat", time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC))
	if peak.CostNano != 420_000_000 || off.CostNano != 210_000_000 || peak.PricePeriod == off.PricePeriod {
		t.Errorf("deepseek peak %d (%s), off-peak %d (%s)", peak.CostNano, peak.PricePeriod, off.CostNano, off.PricePeriod)
	}
	// A model with one price stamps no period.
	if got := at("gpt-5", time.Now()); got.PricePeriod != "" {
		t.Errorf("gpt-5 period %q", got.PricePeriod)
	}
}

// TestPriceRefusesWhatItCannotStore: a call past the bounds (validation
// refuses it first; the processor does not rely on that) is an error,
// never a clamped cost.
func TestPriceRefusesWhatItCannotStore(t *testing.T) {
	for _, ev := range []event.Event{call("gpt-4o", 1<<53-1, 0, 0, 0), call("gpt-4o", 0, 0, 0, 1<<40)} {
		lr := plog.NewLogRecord()
		semconv.PutEvent(lr, &ev)
		if err := price(pricing.Builtin(), lr); err == nil {
			v, _ := lr.Attributes().Get(semconv.CostNano)
			t.Errorf("%d/%d tokens priced at %d nano", ev.InputTokens, ev.OutputTokens, v.Int())
		}
	}
}
