package benchdata

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/pricing"
)

var (
	small  = Spec{Seed: 7, Events: 30_000, Days: 3, Agents: 50, Users: 1000, Sessions: 300, Workflows: 30}
	anchor = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
)

const project = "6f1c1a52-8b1e-4a57-9f0e-1d2c3b4a5e6f"

func TestGenerateIsDeterministic(t *testing.T) {
	a := Generate(small, pricing.Builtin(), project, anchor, 1)
	b := Generate(small, pricing.Builtin(), project, anchor, 1)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations of the same day differ")
	}
	other := small
	other.Seed++
	if reflect.DeepEqual(a, Generate(other, pricing.Builtin(), project, anchor, 1)) {
		t.Fatal("another seed gave the same day")
	}
}

func TestGenerateShape(t *testing.T) {
	total, runs, outcomes := 0, map[string]int{}, 0
	ids := map[string]bool{}
	var tools, subscription, unpriced, failed int
	for d := range small.Days {
		day := Generate(small, pricing.Builtin(), project, anchor, d)
		lo, hi := small.DayStart(anchor, d), small.DayStart(anchor, d+1)
		for i, ev := range day.Events {
			if ev.Timestamp.Before(lo) || !ev.Timestamp.Before(hi) {
				t.Fatalf("day %d: %s outside [%s, %s)", d, ev.Timestamp, lo, hi)
			}
			if i > 0 && ev.Timestamp.Before(day.Events[i-1].Timestamp) {
				t.Fatalf("day %d: events not in timestamp order at %d", d, i)
			}
			if ids[ev.EventID] {
				t.Fatalf("event_id %s twice", ev.EventID)
			}
			ids[ev.EventID] = true
			checkCall(t, ev)
			runs[ev.TraceID]++
			tools += btoi(ev.ToolName != "")
			subscription += btoi(ev.Billing == event.BillingSubscription)
			unpriced += btoi(!ev.Priced)
			failed += btoi(!ev.Success)
		}
		total += len(day.Events)
		outcomes += len(day.Outcomes)
	}
	if total != small.Events {
		t.Fatalf("%d events, want %d", total, small.Events)
	}
	for trace, n := range runs {
		if n < 1 || n > maxRunCalls {
			t.Fatalf("run %s has %d calls", trace, n)
		}
	}
	share := func(n int) float64 { return float64(n) / float64(total) }
	within(t, "runs per event", float64(len(runs))/float64(total), 0.08, 0.12)
	within(t, "tool calls", share(tools), 0.22, 0.28)
	within(t, "subscription calls", share(subscription), 0.10, 0.30)
	within(t, "unpriced calls", share(unpriced), 0.005, 0.08)
	within(t, "failed calls", share(failed), 0.01, 0.05)
	within(t, "runs with an outcome", float64(outcomes)/float64(len(runs)), 0.80, 0.90)
}

// checkCall asserts one call's invariants: ingest's token rules, cache
// tokens only where the model publishes cache rates, depth from parents.
func checkCall(t *testing.T, ev event.Event) {
	t.Helper()
	if ev.CachedTokens+ev.CacheWriteTokens+ev.CacheWrite1hTokens > ev.InputTokens {
		t.Fatalf("%s: cache tokens exceed input tokens", ev.EventID)
	}
	e, known := pricing.Builtin().Lookup(ev.Model)
	if ev.Priced != known || (known && ev.CostNano <= 0) || (!known && (ev.CostNano != 0 || ev.CatalogueCostNano != -1)) {
		t.Fatalf("%s (%s): priced %v cost %d", ev.EventID, ev.Model, ev.Priced, ev.CostNano)
	}
	if (ev.CachedTokens > 0 && !e.Base.HasCacheRead) || (ev.CacheWriteTokens > 0 && !e.Base.HasCacheWrite) ||
		(ev.CacheWrite1hTokens > 0 && !e.Base.HasCacheWrite1h) {
		t.Fatalf("%s (%s): cache tokens without a published rate", ev.EventID, ev.Model)
	}
	if ev.TraceID == "" || ev.SpanID == "" || ev.UserID == "" || ev.SessionID == "" {
		t.Fatalf("%s: missing run or session fields: %+v", ev.EventID, ev)
	}
}

func TestDepthAtMostFour(t *testing.T) {
	day := Generate(small, pricing.Builtin(), project, anchor, 0)
	parent := map[[2]string]string{}
	for _, ev := range day.Events {
		parent[[2]string{ev.TraceID, ev.SpanID}] = ev.ParentSpanID
	}
	deepest := 0
	for k := range parent {
		depth := 0
		for p := parent[k]; p != ""; p = parent[[2]string{k[0], p}] {
			depth++
		}
		deepest = max(deepest, depth)
	}
	if deepest != maxDepth {
		t.Fatalf("deepest span at depth %d, want %d", deepest, maxDepth)
	}
}

// TestIngestGivesTheSameRows sends a day through the batch decoder and the
// processor's pricing rules: each event must come back field for field.
func TestIngestGivesTheSameRows(t *testing.T) {
	day := Generate(small, pricing.Builtin(), project, anchor, 2)
	v := &ingest.Validator{Now: func() time.Time { return anchor }}
	for i := 0; i < len(day.Events); i += 1000 {
		sent := day.Events[i:min(i+1000, len(day.Events))]
		body, err := BatchBody(sent, day.Outcomes[:3])
		if err != nil {
			t.Fatal(err)
		}
		b, err := ingest.DecodeBatch(body, project, ingest.DefaultLimits, v)
		if err != nil || len(b.Rejections) > 0 || len(b.Outcomes) != 3 {
			t.Fatalf("decode: %v %+v", err, b.Rejections)
		}
		for j := range b.Events {
			got := b.Events[j]
			Price(pricing.Builtin(), &got)
			if !reflect.DeepEqual(got, sent[j]) {
				t.Fatalf("event %d through ingest:\n got %+v\nwant %+v", j, got, sent[j])
			}
		}
	}
}

func TestSpecValidate(t *testing.T) {
	if err := Default.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Spec{{Days: 0}, {Days: 10, Sessions: 5, Events: 100, Agents: 1, Users: 1, Workflows: 1},
		{Days: 2, Sessions: 5, Events: 1, Agents: 1, Users: 1, Workflows: 1}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func within(t *testing.T, what string, v, lo, hi float64) {
	t.Helper()
	if v < lo || v > hi {
		t.Errorf("%s: %.3f, want within [%.2f, %.2f]", what, v, lo, hi)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPrefixOnlyRenames: a prefix begins every call's, run's and session's
// id (the metadata's session too) and changes nothing else, so datasets
// generated into one project under different prefixes never collide; the
// key tells them apart, and the unprefixed key is unchanged.
func TestPrefixOnlyRenames(t *testing.T) {
	prefixed := small
	prefixed.Prefix = "h1-"
	a := Generate(small, pricing.Builtin(), project, anchor, 1)
	b := Generate(prefixed, pricing.Builtin(), project, anchor, 1)
	if len(a.Events) != len(b.Events) || len(a.Outcomes) != len(b.Outcomes) {
		t.Fatalf("%d calls and %d outcomes, prefixed %d and %d", len(a.Events), len(a.Outcomes), len(b.Events), len(b.Outcomes))
	}
	for i := range a.Events {
		x, y := a.Events[i], b.Events[i]
		if y.EventID != "h1-"+x.EventID || y.TraceID != "h1-"+x.TraceID || y.SessionID != "h1-"+x.SessionID {
			t.Fatalf("call %d: ids %s %s %s, unprefixed %s %s %s", i, y.EventID, y.TraceID, y.SessionID, x.EventID, x.TraceID, x.SessionID)
		}
		if !strings.Contains(string(y.Metadata), `"session_id":"h1-`) {
			t.Fatalf("call %d: metadata %s", i, y.Metadata)
		}
		x.EventID, x.TraceID, x.SessionID, x.Metadata = y.EventID, y.TraceID, y.SessionID, y.Metadata
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("call %d differs beyond its ids:\n %+v\n %+v", i, x, y)
		}
	}
	for i, o := range b.Outcomes {
		if o.TraceID != "h1-"+a.Outcomes[i].TraceID {
			t.Fatalf("outcome %d of %s, unprefixed %s", i, o.TraceID, a.Outcomes[i].TraceID)
		}
	}
	if prefixed.Key() == small.Key() || !strings.HasSuffix(prefixed.Key(), "-ph1-") ||
		Default.Key() != "v3-seed20261122-10000000e-90d-50a-1000u-10000s-30w" {
		t.Fatalf("keys %s, %s", prefixed.Key(), Default.Key())
	}
}
