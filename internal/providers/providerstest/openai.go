package providerstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// OpenAIUsage is one day's completions usage the fake reports. Input
// counts the cached tokens too, as the API's input_tokens does.
type OpenAIUsage struct {
	Day                             time.Time
	Project, APIKey, Model, Tier    string
	Batch                           bool
	Input, Cached, Output, Requests int64
}

// OpenAICost is one day's cost line, in nano-USD.
type OpenAICost struct {
	Day               time.Time
	Project, LineItem string
	APIKey            string
	Nano              int64
}

// OpenAI is a fake of the organization Usage and Costs API.
type OpenAI struct {
	*Server
	dmu   sync.Mutex
	usage []OpenAIUsage
	costs []OpenAICost
}

// NewOpenAI starts the fake accepting key.
func NewOpenAI(t testing.TB, key string) *OpenAI {
	o := &OpenAI{}
	o.Server = newServer(t, key, o.serve)
	return o
}

// SetData replaces what the fake reports.
func (o *OpenAI) SetData(u []OpenAIUsage, c []OpenAICost) {
	o.dmu.Lock()
	o.usage, o.costs = slices.Clone(u), slices.Clone(c)
	o.dmu.Unlock()
}

func (o *OpenAI) serve(s *Server, w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.currentKey() {
		fail(w, http.StatusUnauthorized, "Incorrect API key provided")
		return
	}
	q := r.URL.Query()
	var err error
	switch r.URL.Path {
	case "/v1/organization/usage/completions":
		err = o.completions(w, q)
	case "/v1/organization/costs":
		err = o.costReport(w, q)
	default:
		fail(w, http.StatusNotFound, "not found")
		return
	}
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
	}
}

func (o *OpenAI) common(q url.Values, maxLimit int) (from, to, next time.Time, err error) {
	st, err := strconv.ParseInt(q.Get("start_time"), 10, 64)
	if err != nil {
		return from, to, next, fmt.Errorf("start_time: required, Unix seconds")
	}
	end := time.Now().UTC()
	if v := q.Get("end_time"); v != "" {
		et, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return from, to, next, fmt.Errorf("end_time: must be Unix seconds")
		}
		end = time.Unix(et, 0).UTC()
	}
	if bw := q.Get("bucket_width"); bw != "" && bw != "1d" {
		return from, to, next, fmt.Errorf("bucket_width: this fake serves 1d only")
	}
	limit := 7
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > maxLimit {
			return from, to, next, fmt.Errorf("limit: must be 1 to %d", maxLimit)
		}
	}
	return window(time.Unix(st, 0), end, q.Get("page"), o.days(limit))
}

func groupBy(q url.Values, allowed ...string) (map[string]bool, error) {
	g := map[string]bool{}
	for _, v := range q["group_by"] {
		if !slices.Contains(allowed, v) {
			return nil, fmt.Errorf("group_by: %q is not one of %v", v, allowed)
		}
		g[v] = true
	}
	return g, nil
}

func (o *OpenAI) completions(w http.ResponseWriter, q url.Values) error {
	if err := checkParams(q, "start_time", "end_time", "bucket_width", "limit", "page", "group_by",
		"project_ids", "user_ids", "api_key_ids", "models", "batch"); err != nil {
		return err
	}
	g, err := groupBy(q, "project_id", "user_id", "api_key_id", "model", "batch", "service_tier")
	if err != nil {
		return err
	}
	from, to, next, err := o.common(q, 31)
	if err != nil {
		return err
	}
	o.dmu.Lock()
	defer o.dmu.Unlock()
	var data []map[string]any
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		sums := map[[5]string]*OpenAIUsage{}
		var order [][5]string
		for _, u := range o.usage {
			if !u.Day.Equal(d) || !in(q["project_ids"], u.Project) || !in(q["api_key_ids"], u.APIKey) {
				continue
			}
			k := [5]string{pick(g, "project_id", u.Project), pick(g, "api_key_id", u.APIKey), pick(g, "model", u.Model),
				pick(g, "batch", strconv.FormatBool(u.Batch)), pick(g, "service_tier", u.Tier)}
			if sums[k] == nil {
				sums[k] = &OpenAIUsage{}
				order = append(order, k)
			}
			s := sums[k]
			s.Input, s.Cached, s.Output, s.Requests = s.Input+u.Input, s.Cached+u.Cached, s.Output+u.Output, s.Requests+u.Requests
		}
		results := []map[string]any{}
		for _, k := range order {
			s := sums[k]
			var batch any
			if k[3] != "" {
				batch = k[3] == "true"
			}
			results = append(results, map[string]any{"object": "organization.usage.completions.result",
				"input_tokens": s.Input, "output_tokens": s.Output, "input_cached_tokens": s.Cached,
				"input_audio_tokens": 0, "output_audio_tokens": 0, "num_model_requests": s.Requests,
				"project_id": null(k[0]), "user_id": nil, "api_key_id": null(k[1]), "model": null(k[2]),
				"batch": batch, "service_tier": null(k[4])})
		}
		data = append(data, openAIBucket(d, results))
	}
	answer(w, openAIPage(data, next))
	return nil
}

func (o *OpenAI) costReport(w http.ResponseWriter, q url.Values) error {
	if err := checkParams(q, "start_time", "end_time", "bucket_width", "limit", "page", "group_by",
		"project_ids", "api_key_ids"); err != nil {
		return err
	}
	g, err := groupBy(q, "project_id", "line_item", "api_key_id")
	if err != nil {
		return err
	}
	from, to, next, err := o.common(q, 180)
	if err != nil {
		return err
	}
	o.dmu.Lock()
	defer o.dmu.Unlock()
	var data []map[string]any
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		sums := map[[2]string]int64{}
		var order [][2]string
		for _, c := range o.costs {
			if !c.Day.Equal(d) || !in(q["project_ids"], c.Project) || !in(q["api_key_ids"], c.APIKey) {
				continue
			}
			k := [2]string{pick(g, "project_id", c.Project), pick(g, "line_item", c.LineItem)}
			if _, ok := sums[k]; !ok {
				order = append(order, k)
			}
			sums[k] += c.Nano
		}
		results := []map[string]any{}
		for _, k := range order {
			results = append(results, map[string]any{"object": "organization.costs.result",
				"amount":    map[string]any{"value": json.Number(scaled(sums[k], 9)), "currency": "usd"},
				"line_item": null(k[1]), "project_id": null(k[0])})
		}
		data = append(data, openAIBucket(d, results))
	}
	answer(w, openAIPage(data, next))
	return nil
}

func openAIBucket(d time.Time, results []map[string]any) map[string]any {
	return map[string]any{"object": "bucket", "start_time": d.Unix(), "end_time": d.AddDate(0, 0, 1).Unix(),
		"results": results}
}

func openAIPage(data []map[string]any, next time.Time) map[string]any {
	out := pageOf(data, next)
	out["object"] = "page"
	return out
}
