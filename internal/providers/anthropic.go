package providers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// AnthropicBaseURL is the public origin of Anthropic's API.
const AnthropicBaseURL = "https://api.anthropic.com"

// AnthropicVersion is the API version every request names.
const AnthropicVersion = "2023-06-01"

// anthropicDayLimit is the most daily buckets one page may hold.
const anthropicDayLimit = 31

// AnthropicClient reads GET /v1/organizations/usage_report/messages and
// GET /v1/organizations/cost_report.
type AnthropicClient struct{ opts Options }

// NewAnthropic builds the client.
func NewAnthropic(o Options) *AnthropicClient {
	return &AnthropicClient{opts: o.withDefaults(AnthropicBaseURL)}
}

type anthropicUsagePage struct {
	page
	Data []struct {
		StartingAt time.Time `json:"starting_at"`
		Results    []struct {
			Uncached      int64 `json:"uncached_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			CacheCreation struct {
				OneHour  int64 `json:"ephemeral_1h_input_tokens"`
				FiveMins int64 `json:"ephemeral_5m_input_tokens"`
			} `json:"cache_creation"`
			Output      int64   `json:"output_tokens"`
			Model       *string `json:"model"`
			ServiceTier *string `json:"service_tier"`
			WorkspaceID *string `json:"workspace_id"`
		} `json:"results"`
	} `json:"data"`
}

type anthropicCostPage struct {
	page
	Data []struct {
		StartingAt time.Time `json:"starting_at"`
		Results    []struct {
			Currency    string  `json:"currency"`
			Amount      string  `json:"amount"`
			WorkspaceID *string `json:"workspace_id"`
			CostType    *string `json:"cost_type"`
			Model       *string `json:"model"`
			ServiceTier *string `json:"service_tier"`
			TokenType   *string `json:"token_type"`
		} `json:"results"`
	} `json:"data"`
}

func (c *AnthropicClient) header(key string) http.Header {
	h := http.Header{}
	h.Set("x-api-key", key)
	h.Set("anthropic-version", AnthropicVersion)
	return h
}

// Fetch implements Client. Usage is grouped by model and service tier and
// filtered by the scope's workspaces and API keys; costs are grouped by
// description (model, token type, tier) and, with a workspace scope, by
// workspace, kept for the scope's workspaces. The cost report has no API
// key filter: with API keys in the scope it is not read (NoCosts).
func (c *AnthropicClient) Fetch(ctx context.Context, key string, scope Scope, from, to time.Time) (Report, error) {
	rep := Report{From: from, To: to, NoCosts: len(scope.APIKeyIDs) > 0}
	if err := c.usage(ctx, key, scope, from, to, &rep); err != nil {
		return Report{}, err
	}
	if rep.NoCosts {
		return rep, nil
	}
	if err := c.costs(ctx, key, scope, from, to, &rep); err != nil {
		return Report{}, err
	}
	return rep, nil
}

func (c *AnthropicClient) query(from, to time.Time) url.Values {
	q := url.Values{}
	q.Set("starting_at", from.UTC().Format(time.RFC3339))
	q.Set("ending_at", to.UTC().Format(time.RFC3339))
	q.Set("bucket_width", "1d")
	q.Set("limit", strconv.Itoa(anthropicDayLimit))
	return q
}

func (c *AnthropicClient) usage(ctx context.Context, key string, scope Scope, from, to time.Time, rep *Report) error {
	seen := map[string]bool{}
	for cursor := ""; ; {
		q := c.query(from, to)
		q["group_by[]"] = []string{"model", "service_tier"}
		if len(scope.WorkspaceIDs) > 0 {
			q["workspace_ids[]"] = scope.WorkspaceIDs
		}
		if len(scope.APIKeyIDs) > 0 {
			q["api_key_ids[]"] = scope.APIKeyIDs
		}
		if cursor != "" {
			q.Set("page", cursor)
		}
		var p anthropicUsagePage
		if err := c.opts.getJSON(ctx, Anthropic, "/v1/organizations/usage_report/messages", q, c.header(key), &p); err != nil {
			return err
		}
		for _, b := range p.Data {
			for _, r := range b.Results {
				rep.Usage = append(rep.Usage, Usage{Day: Day(b.StartingAt), Model: str(r.Model), Tier: tier(str(r.ServiceTier)),
					Tokens: Tokens{Input: r.Uncached, CacheRead: r.CacheRead, CacheWrite5m: r.CacheCreation.FiveMins,
						CacheWrite1h: r.CacheCreation.OneHour, Output: r.Output}})
			}
		}
		next, err := p.next(Anthropic, seen)
		if err != nil || next == "" {
			return err
		}
		cursor = next
	}
}

func (c *AnthropicClient) costs(ctx context.Context, key string, scope Scope, from, to time.Time, rep *Report) error {
	keep := map[string]bool{}
	for _, w := range scope.WorkspaceIDs {
		keep[w] = true
	}
	seen := map[string]bool{}
	for cursor := ""; ; {
		q := c.query(from, to)
		q["group_by[]"] = []string{"description"}
		if len(keep) > 0 {
			q["group_by[]"] = append(q["group_by[]"], "workspace_id")
		}
		if cursor != "" {
			q.Set("page", cursor)
		}
		var p anthropicCostPage
		if err := c.opts.getJSON(ctx, Anthropic, "/v1/organizations/cost_report", q, c.header(key), &p); err != nil {
			return err
		}
		for _, b := range p.Data {
			for _, r := range b.Results {
				if len(keep) > 0 && !keep[str(r.WorkspaceID)] {
					continue
				}
				if r.Currency != "" && r.Currency != "USD" {
					return &Error{Provider: Anthropic, Kind: KindRequest, Status: 200, Message: "cost in " + r.Currency + ", not USD"}
				}
				nano, err := amountNano(r.Amount, "-2") // cents
				if err != nil {
					return &Error{Provider: Anthropic, Kind: KindRequest, Status: 200, Message: "unreadable amount " + strconv.Quote(r.Amount)}
				}
				cost := Cost{Day: Day(b.StartingAt), Model: str(r.Model), Tier: tier(str(r.ServiceTier)), Nano: nano}
				if str(r.CostType) == "tokens" {
					cost.Class = anthropicClass(str(r.TokenType))
				} else {
					cost.Model = "" // web search, code execution: no model's tokens
				}
				rep.Costs = append(rep.Costs, cost)
			}
		}
		next, err := p.next(Anthropic, seen)
		if err != nil || next == "" {
			return err
		}
		cursor = next
	}
}

// anthropicClass maps the cost report's token_type to a token class.
func anthropicClass(tokenType string) string {
	switch tokenType {
	case "uncached_input_tokens":
		return ClassInput
	case "cache_read_input_tokens":
		return ClassCacheRead
	case "cache_creation.ephemeral_5m_input_tokens":
		return ClassCacheWrite5m
	case "cache_creation.ephemeral_1h_input_tokens":
		return ClassCacheWrite1h
	case "output_tokens":
		return ClassOutput
	}
	return ""
}

// tier maps a provider's service tier to ours: OpenAI's "default" and an
// unstated tier are standard.
func tier(s string) string {
	switch s {
	case "", "default", "auto", TierStandard:
		return TierStandard
	}
	return s
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
