package providers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/providers/providerstest"
)

const (
	antKey = "sk-ant-admin01-test-key-000000000000"
	oaiKey = "sk-admin-test-key-0000000000000000"
)

var day0 = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)

func d(n int) time.Time { return day0.AddDate(0, 0, n) }

// waits records the client's waits instead of sleeping.
type waits struct{ got []time.Duration }

func (w *waits) wait(_ context.Context, d time.Duration) error { w.got = append(w.got, d); return nil }

func anthropicData(fake *providerstest.Anthropic) {
	var u []providerstest.AnthropicUsage
	var c []providerstest.AnthropicCost
	for i := range 20 {
		u = append(u, providerstest.AnthropicUsage{Day: d(i), Workspace: "wrkspc_a", APIKey: "apikey_1", Model: "claude-sonnet-4-5",
			Tier: "standard", Uncached: 1000, CacheRead: 200, Write5m: 30, Write1h: 4, Output: 500},
			providerstest.AnthropicUsage{Day: d(i), Workspace: "wrkspc_b", APIKey: "apikey_2", Model: "claude-sonnet-4-5",
				Tier: "batch", Uncached: 7, Output: 1})
		c = append(c, providerstest.AnthropicCost{Day: d(i), Workspace: "wrkspc_a", Model: "claude-sonnet-4-5",
			TokenType: "uncached_input_tokens", CostType: "tokens", Tier: "standard", Nano: 3_000_001},
			providerstest.AnthropicCost{Day: d(i), Workspace: "wrkspc_a", Model: "claude-sonnet-4-5",
				TokenType: "cache_creation.ephemeral_1h_input_tokens", CostType: "tokens", Tier: "standard", Nano: 24_000},
			providerstest.AnthropicCost{Day: d(i), Workspace: "wrkspc_b", CostType: "web_search", Nano: 10_000_000})
	}
	fake.SetData(u, c)
}

func TestAnthropicFetchPagesAndScope(t *testing.T) {
	fake := providerstest.NewAnthropic(t, antKey)
	anthropicData(fake)
	c := providers.NewAnthropic(providers.Options{BaseURL: fake.URL(), HTTP: fake.Client()})
	rep, err := c.Fetch(context.Background(), antKey, providers.Scope{WorkspaceIDs: []string{"wrkspc_a"}}, d(0), d(20))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Usage) != 20 {
		t.Fatalf("usage rows %d, want 20 (one workspace, 20 days)", len(rep.Usage))
	}
	u := rep.Usage[19]
	want := providers.Tokens{Input: 1000, CacheRead: 200, CacheWrite5m: 30, CacheWrite1h: 4, Output: 500}
	if !u.Day.Equal(d(19)) || u.Model != "claude-sonnet-4-5" || u.Tier != "standard" || u.Tokens != want {
		t.Fatalf("last usage row %+v", u)
	}
	var total int64
	for _, c := range rep.Costs {
		total += c.Nano
		if c.Model == "" {
			t.Fatalf("another workspace's web search kept: %+v", c)
		}
	}
	if total != 20*(3_000_001+24_000) || rep.Costs[1].Class != providers.ClassCacheWrite1h {
		t.Fatalf("costs %d nano, rows %+v", total, rep.Costs[:2])
	}
	var usagePages, costPages int
	for _, r := range fake.Requests() {
		if strings.Contains(r, "usage_report") {
			usagePages++
			if !strings.Contains(r, "workspace_ids%5B%5D=wrkspc_a") || !strings.Contains(r, "group_by%5B%5D=service_tier") {
				t.Errorf("usage request without the scope or grouping: %s", r)
			}
		} else {
			costPages++
		}
	}
	if usagePages != 3 || costPages != 3 {
		t.Fatalf("%d usage and %d cost pages, want 3 each (7-day pages)", usagePages, costPages)
	}
}

func TestAnthropicAPIKeyScopeReadsNoCosts(t *testing.T) {
	fake := providerstest.NewAnthropic(t, antKey)
	anthropicData(fake)
	c := providers.NewAnthropic(providers.Options{BaseURL: fake.URL(), HTTP: fake.Client()})
	rep, err := c.Fetch(context.Background(), antKey, providers.Scope{APIKeyIDs: []string{"apikey_2"}}, d(0), d(3))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.NoCosts || len(rep.Costs) != 0 || len(rep.Usage) != 3 || rep.Usage[0].Tier != "batch" {
		t.Fatalf("report %+v", rep)
	}
}

func TestRateLimitedThenServed(t *testing.T) {
	fake := providerstest.NewAnthropic(t, antKey)
	anthropicData(fake)
	fake.SetFaults(providerstest.Faults{RateLimited: 2, RetryAfter: 7})
	w := &waits{}
	c := providers.NewAnthropic(providers.Options{BaseURL: fake.URL(), HTTP: fake.Client(), Wait: w.wait})
	if _, err := c.Fetch(context.Background(), antKey, providers.Scope{}, d(0), d(2)); err != nil {
		t.Fatal(err)
	}
	if len(w.got) != 2 || w.got[0] != 7*time.Second {
		t.Fatalf("waits %v, want two of Retry-After 7s", w.got)
	}
}

func TestRetryAfterBeyondMaxWaitIsTransient(t *testing.T) {
	fake := providerstest.NewOpenAI(t, oaiKey)
	fake.SetFaults(providerstest.Faults{RateLimited: 1, RetryAfter: 3600})
	w := &waits{}
	c := providers.NewOpenAI(providers.Options{BaseURL: fake.URL(), HTTP: fake.Client(), Wait: w.wait})
	_, err := c.Fetch(context.Background(), oaiKey, providers.Scope{}, d(0), d(2))
	var pe *providers.Error
	if providers.KindOf(err) != providers.KindTransient || len(w.got) != 0 {
		t.Fatalf("err %v, waits %v", err, w.got)
	}
	if ok := providers.AsError(err, &pe); !ok || pe.RetryAfter != time.Hour || pe.Status != http.StatusTooManyRequests {
		t.Fatalf("error %+v", pe)
	}
}

func TestBadKeyAndProviderDown(t *testing.T) {
	fake := providerstest.NewOpenAI(t, oaiKey)
	w := &waits{}
	c := providers.NewOpenAI(providers.Options{BaseURL: fake.URL(), HTTP: fake.Client(), Wait: w.wait})
	_, err := c.Fetch(context.Background(), "sk-admin-revoked", providers.Scope{}, d(0), d(1))
	if providers.KindOf(err) != providers.KindAuth || strings.Contains(err.Error(), "sk-admin") {
		t.Fatalf("bad key: %v", err)
	}
	fake.SetFaults(providerstest.Faults{Down: true})
	_, err = c.Fetch(context.Background(), oaiKey, providers.Scope{}, d(0), d(1))
	if providers.KindOf(err) != providers.KindTransient || len(w.got) != providers.DefaultAttempts-1 {
		t.Fatalf("down: %v after waits %v", err, w.got)
	}
}

func TestOpenAIFetch(t *testing.T) {
	fake := providerstest.NewOpenAI(t, oaiKey)
	var u []providerstest.OpenAIUsage
	var c []providerstest.OpenAICost
	for i := range 10 {
		u = append(u, providerstest.OpenAIUsage{Day: d(i), Project: "proj_a", Model: "gpt-4o-2024-08-06", Tier: "default",
			Input: 1000, Cached: 400, Output: 50, Requests: 3},
			providerstest.OpenAIUsage{Day: d(i), Project: "proj_a", Model: "gpt-4o-2024-08-06", Batch: true, Input: 10, Output: 5, Requests: 1},
			providerstest.OpenAIUsage{Day: d(i), Project: "proj_b", Model: "gpt-4o-mini", Input: 9, Output: 9, Requests: 1})
		c = append(c, providerstest.OpenAICost{Day: d(i), Project: "proj_a", LineItem: "gpt-4o-2024-08-06, input", Nano: 1_500_000},
			providerstest.OpenAICost{Day: d(i), Project: "proj_a", LineItem: "gpt-4o-2024-08-06, cached input", Nano: 500_000},
			providerstest.OpenAICost{Day: d(i), Project: "proj_b", LineItem: "gpt-4o-mini, output", Nano: 99})
	}
	fake.SetData(u, c)
	cl := providers.NewOpenAI(providers.Options{BaseURL: fake.URL(), HTTP: fake.Client()})
	rep, err := cl.Fetch(context.Background(), oaiKey, providers.Scope{ProjectIDs: []string{"proj_a"}}, d(0), d(10))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Usage) != 20 || len(rep.Costs) != 20 {
		t.Fatalf("%d usage, %d cost rows", len(rep.Usage), len(rep.Costs))
	}
	if got := rep.Usage[0]; got.Tokens != (providers.Tokens{Input: 600, CacheRead: 400, Output: 50}) || got.Tier != "standard" {
		t.Fatalf("first usage %+v: input must exclude the cached tokens", got)
	}
	if got := rep.Usage[1]; got.Tier != "batch" {
		t.Fatalf("batch usage %+v", got)
	}
	if got := rep.Costs[1]; got.Model != "gpt-4o-2024-08-06" || got.Class != providers.ClassCacheRead || got.Nano != 500_000 {
		t.Fatalf("cost %+v", got)
	}
	for _, r := range fake.Requests() {
		if !strings.Contains(r, "project_ids=proj_a") || !strings.Contains(r, "bucket_width=1d") {
			t.Errorf("request without the scope: %s", r)
		}
	}
}

func TestProviderMessagesHideKeys(t *testing.T) {
	fake := providerstest.NewOpenAI(t, oaiKey)
	fake.SetKey("sk-admin-another")
	c := providers.NewOpenAI(providers.Options{BaseURL: fake.URL(), HTTP: fake.Client()})
	_, err := c.Fetch(context.Background(), "sk-admin-****ABCD", providers.Scope{}, d(0), d(1))
	if err == nil || strings.Contains(err.Error(), "sk-") {
		t.Fatalf("error %v", err)
	}
}

// The fakes refuse what the real APIs refuse: a client that forgot a
// header or a required parameter fails its tests.
func TestFakesAreStrict(t *testing.T) {
	ant := providerstest.NewAnthropic(t, antKey)
	oai := providerstest.NewOpenAI(t, oaiKey)
	cases := []struct {
		url    string
		header map[string]string
		want   int
	}{
		{ant.URL() + "/v1/organizations/usage_report/messages?starting_at=2026-10-01T00:00:00Z", map[string]string{"x-api-key": antKey}, 400},
		{ant.URL() + "/v1/organizations/usage_report/messages?starting_at=2026-10-01T00:00:00Z", map[string]string{"anthropic-version": "2023-06-01"}, 401},
		{ant.URL() + "/v1/organizations/cost_report", map[string]string{"x-api-key": antKey, "anthropic-version": "2023-06-01"}, 400},
		{ant.URL() + "/v1/organizations/cost_report?starting_at=2026-10-01T00:00:00Z&limit=32", map[string]string{"x-api-key": antKey, "anthropic-version": "2023-06-01"}, 400},
		{ant.URL() + "/v1/organizations/cost_report?starting_at=2026-10-01T00:00:00Z&page=forged", map[string]string{"x-api-key": antKey, "anthropic-version": "2023-06-01"}, 400},
		{ant.URL() + "/v1/organizations/cost_report?starting_at=2026-10-01T00:00:00Z&group_by[]=model", map[string]string{"x-api-key": antKey, "anthropic-version": "2023-06-01"}, 400},
		{oai.URL() + "/v1/organization/costs?start_time=1759276800", map[string]string{"x-api-key": oaiKey}, 401},
		{oai.URL() + "/v1/organization/costs", map[string]string{"Authorization": "Bearer " + oaiKey}, 400},
		{oai.URL() + "/v1/organization/usage/completions?start_time=1759276800&limit=32", map[string]string{"Authorization": "Bearer " + oaiKey}, 400},
		{oai.URL() + "/v1/organization/usage/completions?start_time=1759276800&group_by=workspace_id", map[string]string{"Authorization": "Bearer " + oaiKey}, 400},
		{oai.URL() + "/v1/organization/usage/completions?start_time=1759276800&end_time=1759363200", map[string]string{"Authorization": "Bearer " + oaiKey}, 200},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("GET", c.url, nil)
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		res, err := ant.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.url, res.StatusCode, c.want)
		}
	}
}
