package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OpenAIBaseURL is the public origin of OpenAI's API.
const OpenAIBaseURL = "https://api.openai.com"

// openAIDayLimit is the most daily buckets one usage page may hold (the
// costs endpoint allows more; one limit keeps the two in step).
const openAIDayLimit = 31

// OpenAIClient reads GET /v1/organization/usage/completions and
// GET /v1/organization/costs.
type OpenAIClient struct{ opts Options }

// NewOpenAI builds the client.
func NewOpenAI(o Options) *OpenAIClient { return &OpenAIClient{opts: o.withDefaults(OpenAIBaseURL)} }

type openAIUsagePage struct {
	page
	Data []struct {
		StartTime int64 `json:"start_time"`
		Results   []struct {
			Input       int64   `json:"input_tokens"`
			Cached      int64   `json:"input_cached_tokens"`
			Output      int64   `json:"output_tokens"`
			Requests    int64   `json:"num_model_requests"`
			Model       *string `json:"model"`
			Batch       *bool   `json:"batch"`
			ServiceTier *string `json:"service_tier"`
		} `json:"results"`
	} `json:"data"`
}

type openAICostPage struct {
	page
	Data []struct {
		StartTime int64 `json:"start_time"`
		Results   []struct {
			Amount struct {
				Value    json.Number `json:"value"`
				Currency string      `json:"currency"`
			} `json:"amount"`
			LineItem  *string `json:"line_item"`
			ProjectID *string `json:"project_id"`
		} `json:"results"`
	} `json:"data"`
}

func (c *OpenAIClient) header(key string) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+key)
	return h
}

func (c *OpenAIClient) query(from, to time.Time, scope Scope) url.Values {
	q := url.Values{}
	q.Set("start_time", strconv.FormatInt(from.Unix(), 10))
	q.Set("end_time", strconv.FormatInt(to.Unix(), 10))
	q.Set("bucket_width", "1d")
	q.Set("limit", strconv.Itoa(openAIDayLimit))
	if len(scope.ProjectIDs) > 0 {
		q["project_ids"] = scope.ProjectIDs
	}
	if len(scope.APIKeyIDs) > 0 {
		q["api_key_ids"] = scope.APIKeyIDs
	}
	return q
}

// Fetch implements Client: completions usage grouped by model, batch and
// service tier; costs grouped by line item. Both are filtered by the
// scope's projects and API keys.
func (c *OpenAIClient) Fetch(ctx context.Context, key string, scope Scope, from, to time.Time) (Report, error) {
	rep := Report{From: from, To: to}
	if err := c.usage(ctx, key, scope, from, to, &rep); err != nil {
		return Report{}, err
	}
	if err := c.costs(ctx, key, scope, from, to, &rep); err != nil {
		return Report{}, err
	}
	return rep, nil
}

func (c *OpenAIClient) usage(ctx context.Context, key string, scope Scope, from, to time.Time, rep *Report) error {
	seen := map[string]bool{}
	for cursor := ""; ; {
		q := c.query(from, to, scope)
		q["group_by"] = []string{"model", "batch", "service_tier"}
		if cursor != "" {
			q.Set("page", cursor)
		}
		var p openAIUsagePage
		if err := c.opts.getJSON(ctx, OpenAI, "/v1/organization/usage/completions", q, c.header(key), &p); err != nil {
			return err
		}
		for _, b := range p.Data {
			for _, r := range b.Results {
				t := tier(str(r.ServiceTier))
				if r.Batch != nil && *r.Batch {
					t = TierBatch
				}
				// input_tokens counts the cached ones too: input is the rest.
				rep.Usage = append(rep.Usage, Usage{Day: Day(time.Unix(b.StartTime, 0)), Model: str(r.Model), Tier: t,
					Tokens: Tokens{Input: r.Input - r.Cached, CacheRead: r.Cached, Output: r.Output}, Requests: r.Requests})
			}
		}
		next, err := p.next(OpenAI, seen)
		if err != nil || next == "" {
			return err
		}
		cursor = next
	}
}

func (c *OpenAIClient) costs(ctx context.Context, key string, scope Scope, from, to time.Time, rep *Report) error {
	seen := map[string]bool{}
	for cursor := ""; ; {
		q := c.query(from, to, scope)
		q["group_by"] = []string{"line_item"}
		if cursor != "" {
			q.Set("page", cursor)
		}
		var p openAICostPage
		if err := c.opts.getJSON(ctx, OpenAI, "/v1/organization/costs", q, c.header(key), &p); err != nil {
			return err
		}
		for _, b := range p.Data {
			for _, r := range b.Results {
				if cur := strings.ToLower(r.Amount.Currency); cur != "" && cur != "usd" {
					return &Error{Provider: OpenAI, Kind: KindRequest, Status: 200, Message: "cost in " + r.Amount.Currency + ", not USD"}
				}
				nano, err := amountNano(r.Amount.Value.String(), "")
				if err != nil {
					return &Error{Provider: OpenAI, Kind: KindRequest, Status: 200, Message: "unreadable amount " + strconv.Quote(r.Amount.Value.String())}
				}
				model, class, t := openAILineItem(str(r.LineItem))
				rep.Costs = append(rep.Costs, Cost{Day: Day(time.Unix(b.StartTime, 0)), Model: model, Class: class, Tier: t, Nano: nano})
			}
		}
		next, err := p.next(OpenAI, seen)
		if err != nil || next == "" {
			return err
		}
		cursor = next
	}
}

// openAILineItem reads a costs line item such as "gpt-4o-2024-08-06,
// cached input" or "gpt-4o-mini, batch output": the model before the last
// comma, the token class after it. A line item of another shape (tools,
// storage) is a charge tied to no model.
func openAILineItem(item string) (model, class, t string) {
	i := strings.LastIndex(item, ",")
	if i < 0 {
		return "", "", TierStandard
	}
	model, kind := strings.TrimSpace(item[:i]), strings.ToLower(strings.TrimSpace(item[i+1:]))
	t = TierStandard
	if rest, ok := strings.CutPrefix(kind, "batch "); ok {
		t, kind = TierBatch, rest
	}
	switch kind {
	case "input", "uncached input":
		return model, ClassInput, t
	case "cached input":
		return model, ClassCacheRead, t
	case "output":
		return model, ClassOutput, t
	}
	return model, "", t
}
