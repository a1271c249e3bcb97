package providerstest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// AnthropicUsage is one day's usage the fake reports, before grouping.
type AnthropicUsage struct {
	Day                                           time.Time
	Workspace, APIKey, Model, Tier                string
	Uncached, CacheRead, Write5m, Write1h, Output int64
}

// AnthropicCost is one day's cost line, in nano-USD (answered in cents).
type AnthropicCost struct {
	Day                                         time.Time
	Workspace, Model, TokenType, CostType, Tier string
	Nano                                        int64
}

// Anthropic is a fake of the Usage and Cost Admin API.
type Anthropic struct {
	*Server
	dmu   sync.Mutex
	usage []AnthropicUsage
	costs []AnthropicCost
}

// NewAnthropic starts the fake accepting key.
func NewAnthropic(t testing.TB, key string) *Anthropic {
	a := &Anthropic{}
	a.Server = newServer(t, key, a.serve)
	return a
}

// SetData replaces what the fake reports.
func (a *Anthropic) SetData(u []AnthropicUsage, c []AnthropicCost) {
	a.dmu.Lock()
	a.usage, a.costs = slices.Clone(u), slices.Clone(c)
	a.dmu.Unlock()
}

func (a *Anthropic) serve(s *Server, w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("x-api-key") != s.currentKey() {
		fail(w, http.StatusUnauthorized, "invalid x-api-key")
		return
	}
	if r.Header.Get("anthropic-version") != "2023-06-01" {
		fail(w, http.StatusBadRequest, "anthropic-version: header is required")
		return
	}
	q := r.URL.Query()
	var err error
	switch r.URL.Path {
	case "/v1/organizations/usage_report/messages":
		err = a.usageReport(w, q)
	case "/v1/organizations/cost_report":
		err = a.costReport(w, q)
	default:
		fail(w, http.StatusNotFound, "not found")
		return
	}
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
	}
}

// common checks the parameters both reports share and resolves the page.
func (a *Anthropic) common(q url.Values) (from, to, next time.Time, err error) {
	start, err := time.Parse(time.RFC3339, q.Get("starting_at"))
	if err != nil {
		return from, to, next, fmt.Errorf("starting_at: required, an RFC 3339 timestamp")
	}
	end := time.Now().UTC()
	if v := q.Get("ending_at"); v != "" {
		if end, err = time.Parse(time.RFC3339, v); err != nil {
			return from, to, next, fmt.Errorf("ending_at: must be an RFC 3339 timestamp")
		}
	}
	if bw := q.Get("bucket_width"); bw != "" && bw != "1d" {
		return from, to, next, fmt.Errorf("bucket_width: this fake serves 1d only")
	}
	limit := 7
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 31 {
			return from, to, next, fmt.Errorf("limit: must be 1 to 31 for 1d buckets")
		}
	}
	return window(start, end, q.Get("page"), a.days(limit))
}

func groups(q url.Values, allowed ...string) (map[string]bool, error) {
	g := map[string]bool{}
	for _, v := range q["group_by[]"] {
		if !slices.Contains(allowed, v) {
			return nil, fmt.Errorf("group_by[]: %q is not one of %v", v, allowed)
		}
		g[v] = true
	}
	return g, nil
}

func (a *Anthropic) usageReport(w http.ResponseWriter, q url.Values) error {
	if err := checkParams(q, "starting_at", "ending_at", "bucket_width", "limit", "page", "group_by[]",
		"workspace_ids[]", "api_key_ids[]", "models[]", "service_tiers[]", "context_window[]"); err != nil {
		return err
	}
	g, err := groups(q, "api_key_id", "workspace_id", "model", "service_tier", "context_window")
	if err != nil {
		return err
	}
	from, to, next, err := a.common(q)
	if err != nil {
		return err
	}
	a.dmu.Lock()
	defer a.dmu.Unlock()
	var data []map[string]any
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		sums := map[[4]string]*AnthropicUsage{}
		var order [][4]string
		for _, u := range a.usage {
			if !u.Day.Equal(d) || !in(q["workspace_ids[]"], u.Workspace) || !in(q["api_key_ids[]"], u.APIKey) {
				continue
			}
			k := [4]string{pick(g, "workspace_id", u.Workspace), pick(g, "api_key_id", u.APIKey),
				pick(g, "model", u.Model), pick(g, "service_tier", u.Tier)}
			if sums[k] == nil {
				sums[k] = &AnthropicUsage{}
				order = append(order, k)
			}
			s := sums[k]
			s.Uncached, s.CacheRead, s.Output = s.Uncached+u.Uncached, s.CacheRead+u.CacheRead, s.Output+u.Output
			s.Write5m, s.Write1h = s.Write5m+u.Write5m, s.Write1h+u.Write1h
		}
		results := []map[string]any{}
		for _, k := range order {
			s := sums[k]
			results = append(results, map[string]any{"uncached_input_tokens": s.Uncached,
				"cache_creation":          map[string]int64{"ephemeral_1h_input_tokens": s.Write1h, "ephemeral_5m_input_tokens": s.Write5m},
				"cache_read_input_tokens": s.CacheRead, "output_tokens": s.Output,
				"server_tool_use": map[string]int64{"web_search_requests": 0},
				"workspace_id":    null(k[0]), "api_key_id": null(k[1]), "model": null(k[2]), "service_tier": null(k[3]),
				"context_window": nil})
		}
		data = append(data, bucket(d, results))
	}
	answer(w, pageOf(data, next))
	return nil
}

func (a *Anthropic) costReport(w http.ResponseWriter, q url.Values) error {
	if err := checkParams(q, "starting_at", "ending_at", "bucket_width", "limit", "page", "group_by[]"); err != nil {
		return err
	}
	g, err := groups(q, "workspace_id", "description")
	if err != nil {
		return err
	}
	from, to, next, err := a.common(q)
	if err != nil {
		return err
	}
	a.dmu.Lock()
	defer a.dmu.Unlock()
	var data []map[string]any
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		sums := map[[5]string]int64{}
		var order [][5]string
		for _, c := range a.costs {
			if !c.Day.Equal(d) {
				continue
			}
			desc := g["description"]
			k := [5]string{pick(g, "workspace_id", c.Workspace), when(desc, c.Model), when(desc, c.TokenType),
				when(desc, c.CostType), when(desc, c.Tier)}
			if _, ok := sums[k]; !ok {
				order = append(order, k)
			}
			sums[k] += c.Nano
		}
		results := []map[string]any{}
		for _, k := range order {
			results = append(results, map[string]any{"currency": "USD", "amount": scaled(sums[k], 7), // nano → cents
				"workspace_id": null(k[0]), "model": null(k[1]), "token_type": null(k[2]), "cost_type": null(k[3]),
				"service_tier": null(k[4]), "context_window": nil, "description": null(k[1])})
		}
		data = append(data, bucket(d, results))
	}
	answer(w, pageOf(data, next))
	return nil
}

func bucket(d time.Time, results []map[string]any) map[string]any {
	return map[string]any{"starting_at": d.Format(time.RFC3339), "ending_at": d.AddDate(0, 0, 1).Format(time.RFC3339),
		"results": results}
}

func pageOf(data []map[string]any, next time.Time) map[string]any {
	if data == nil {
		data = []map[string]any{}
	}
	out := map[string]any{"data": data, "has_more": !next.IsZero(), "next_page": nil}
	if !next.IsZero() {
		out["next_page"] = cursor(next)
	}
	return out
}

func in(filter []string, v string) bool { return len(filter) == 0 || slices.Contains(filter, v) }

func pick(g map[string]bool, field, v string) string { return when(g[field], v) }

func when(ok bool, v string) string {
	if ok {
		return v
	}
	return ""
}

func null(v string) any {
	if v == "" {
		return nil
	}
	return v
}
