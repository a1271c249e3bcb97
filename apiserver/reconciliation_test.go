package apiserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/jobs"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/providers"
	pt "github.com/llmcost/llmcost/internal/providers/providerstest"
	"github.com/llmcost/llmcost/internal/secretbox"
)

// reconFixture is a month of calls sent to llmcost and reported by fake
// provider admin APIs, with deliberate gaps.
type reconFixture struct {
	e       *env
	u       user
	today   time.Time
	ant     *pt.Anthropic
	oai     *pt.OpenAI
	events  []event.Event
	antU    []pt.AnthropicUsage
	antC    []pt.AnthropicCost
	oaiU    []pt.OpenAIUsage
	oaiC    []pt.OpenAICost
	rates   map[string]pricing.Rates
	seq     int
	subCost int64
}

func (f *reconFixture) day(n int) time.Time { return f.today.AddDate(0, 0, -n) }

// call records n calls llmcost saw, priced from the catalogue (unpriced
// when it does not know the model).
func (f *reconFixture) call(day time.Time, model string, n int, u pricing.Usage, billing string) {
	entry, priced := pricing.Builtin().Lookup(model)
	for range n {
		f.seq++
		ev := event.Event{ProjectID: f.u.ProjectID, EventID: fmt.Sprintf("e%d", f.seq), AgentName: "a", Model: model,
			InputTokens: u.Input, OutputTokens: u.Output, CachedTokens: u.Cached, CacheWriteTokens: u.CacheWrite,
			TotalTokens: u.Input + u.Output, Priced: priced, Success: true, Source: "batch", Billing: billing,
			Timestamp: day.Add(time.Duration(f.seq%20) * time.Hour)}
		if priced {
			ev.CostNano = entry.Price(u).Total
		}
		if billing == event.BillingSubscription {
			f.subCost += ev.CostNano
		}
		f.events = append(f.events, ev)
	}
}

func per(tokens int64, rate int64) int64 { return tokens * rate / pricing.AttoPerNano }

// anthropic reports usage and the cost of each class at rates r.
func (f *reconFixture) anthropic(day time.Time, model, tier string, t providers.Tokens, r pricing.Rates, share int64) {
	f.antU = append(f.antU, pt.AnthropicUsage{Day: day, Workspace: "wrkspc_llm", Model: model, Tier: tier,
		Uncached: t.Input, CacheRead: t.CacheRead, Write5m: t.CacheWrite5m, Output: t.Output})
	for typ, nano := range map[string]int64{"uncached_input_tokens": per(t.Input, r.Input), "output_tokens": per(t.Output, r.Output),
		"cache_read_input_tokens": per(t.CacheRead, r.CacheRead), "cache_creation.ephemeral_5m_input_tokens": per(t.CacheWrite5m, r.CacheWrite)} {
		f.antC = append(f.antC, pt.AnthropicCost{Day: day, Workspace: "wrkspc_llm", Model: model, TokenType: typ,
			CostType: "tokens", Tier: tier, Nano: nano * share / 100})
	}
}

func newReconFixture(t *testing.T) *reconFixture {
	e := newEnv(t)
	f := &reconFixture{e: e, u: e.register("recon"), today: providers.Day(e.clock.Now()),
		ant: pt.NewAnthropic(t, testAnthropicKey), oai: pt.NewOpenAI(t, testOpenAIKey), rates: map[string]pricing.Rates{}}
	for _, m := range []string{"claude-sonnet-4-5", "claude-haiku-4-5", "gpt-4o"} {
		entry, _ := pricing.Builtin().Lookup(m)
		f.rates[m] = entry.Base
	}
	sonnet := pricing.Usage{Input: 100_000, Cached: 20_000, CacheWrite: 5_000, Output: 10_000}
	sonnetDay := providers.Tokens{Input: 750_000, CacheRead: 200_000, CacheWrite5m: 50_000, Output: 100_000}
	haiku := pricing.Usage{Input: 10_000, Output: 2_000}
	haikuDay := providers.Tokens{Input: 50_000, Output: 10_000}
	dearHaiku := f.rates["claude-haiku-4-5"]
	dearHaiku.Output *= 2 // the provider bills output at $10, llmcost's catalogue says $5
	gpt := pricing.Usage{Input: 10_000, Cached: 2_000, Output: 1_000}
	for n := 29; n >= 0; n-- {
		d := f.day(n)
		if n != 10 { // llmcost never saw that day's Sonnet calls
			f.call(d, "claude-sonnet-4-5", 10, sonnet, "")
		}
		share := int64(100)
		if n == 0 { // today: the provider has counted half so far
			share = 50
		}
		f.anthropic(d, "claude-sonnet-4-5-20250929", "standard", scale(sonnetDay, share), f.rates["claude-sonnet-4-5"], 100)
		f.call(d, "claude-haiku-4-5", 5, haiku, "")
		f.anthropic(d, "claude-haiku-4-5-20251001", "standard", scale(haikuDay, share), dearHaiku, 100)
		if n >= 3 && n <= 5 { // a model llmcost cannot price
			f.call(d, "claude-mystery-9", 2, pricing.Usage{Input: 1_000, Output: 100}, "")
			f.anthropic(d, "claude-mystery-9-20261001", "standard", providers.Tokens{Input: 2_000, Output: 200},
				pricing.Rates{Input: 2e12, Output: 8e12}, 100)
		}
		f.call(d, "gpt-4o", 4, gpt, "")
		f.oaiU = append(f.oaiU, pt.OpenAIUsage{Day: d, Project: "proj_llm", Model: "gpt-4o-2024-08-06", Tier: "default",
			Input: 40_000 * share / 100, Cached: 8_000 * share / 100, Output: 4_000 * share / 100, Requests: 4})
		r := f.rates["gpt-4o"]
		f.oaiC = append(f.oaiC, pt.OpenAICost{Day: d, Project: "proj_llm", LineItem: "gpt-4o-2024-08-06, input", Nano: per(32_000*share/100, r.Input)},
			pt.OpenAICost{Day: d, Project: "proj_llm", LineItem: "gpt-4o-2024-08-06, cached input", Nano: per(8_000*share/100, r.CacheRead)},
			pt.OpenAICost{Day: d, Project: "proj_llm", LineItem: "gpt-4o-2024-08-06, output", Nano: per(4_000*share/100, r.Output)})
		if n == 7 { // batch calls: billed at half, priced at standard rates by llmcost
			f.call(d, "gpt-4o", 10, pricing.Usage{Input: 50_000, Output: 5_000}, "")
			f.oaiU = append(f.oaiU, pt.OpenAIUsage{Day: d, Project: "proj_llm", Model: "gpt-4o-2024-08-06", Batch: true,
				Input: 500_000, Output: 50_000, Requests: 10})
			f.oaiC = append(f.oaiC, pt.OpenAICost{Day: d, Project: "proj_llm", LineItem: "gpt-4o-2024-08-06, batch input", Nano: per(500_000, r.Input) / 2},
				pt.OpenAICost{Day: d, Project: "proj_llm", LineItem: "gpt-4o-2024-08-06, batch output", Nano: per(50_000, r.Output) / 2})
		}
		if n == 2 { // flat-plan calls: shown, never compared
			f.call(d, "claude-sonnet-4-5", 3, sonnet, event.BillingSubscription)
		}
	}
	// Another workspace's and another project's usage stay out of the scope.
	f.antU = append(f.antU, pt.AnthropicUsage{Day: f.day(4), Workspace: "wrkspc_other", Model: "claude-sonnet-4-5-20250929",
		Tier: "standard", Uncached: 9_999_999, Output: 9_999})
	f.oaiU = append(f.oaiU, pt.OpenAIUsage{Day: f.day(4), Project: "proj_other", Model: "gpt-4o", Input: 77_777, Output: 7})
	f.ant.SetData(f.antU, f.antC)
	f.oai.SetData(f.oaiU, f.oaiC)
	if _, err := e.db.Write(context.Background(), f.events, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

func scale(t providers.Tokens, share int64) providers.Tokens {
	return providers.Tokens{Input: t.Input * share / 100, CacheRead: t.CacheRead * share / 100,
		CacheWrite5m: t.CacheWrite5m * share / 100, CacheWrite1h: t.CacheWrite1h * share / 100, Output: t.Output * share / 100}
}

// sync runs the provider sync as the job runner would.
func (f *reconFixture) sync(t *testing.T) {
	t.Helper()
	keys, err := secretbox.New(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	noWait := func(context.Context, time.Duration) error { return nil }
	s := &jobs.ProviderSync{DB: f.e.db, Keys: keys, Interval: time.Hour, Log: zap.NewNop(), Now: f.e.clock.Now,
		Clients: map[string]providers.Client{
			providers.Anthropic: providers.NewAnthropic(providers.Options{BaseURL: f.ant.URL(), HTTP: f.ant.Client(), Wait: noWait}),
			providers.OpenAI:    providers.NewOpenAI(providers.Options{BaseURL: f.oai.URL(), HTTP: f.oai.Client(), Wait: noWait}),
		}}
	if _, err := s.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
}
