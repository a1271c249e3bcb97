package e2e

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// The analytics dataset and the reports computed from it by hand, in Go,
// independently of the server's SQL: every figure the endpoints answer is
// checked against these.

type call struct {
	id, agent, model                      string
	in, out, cached, cw, cw1              int64
	billing                               string
	fail                                  bool
	latency                               int64 // 0: not sent
	user, session, workflow, tool, client string
	age                                   time.Duration
}

// rates are nano-USD per million tokens: input, output, cache read,
// five-minute write, one-hour write (unpublished cache rates already
// replaced by their fallbacks, as the catalogue does).
type rates [5]int64

// catalogue are the built-in prices of the models the dataset uses;
// acme-llm-9000 is unknown until the test imports it.
var catalogue = map[string]rates{
	"claude-sonnet-4-5": {3e9, 15e9, 3e8, 375e7, 6e9},
	"gpt-4o-mini":       {15e7, 6e8, 75e6, 15e7, 15e7},
	"gpt-4-turbo":       {10e9, 30e9, 10e9, 10e9, 10e9},
}

var acmeRates = rates{2e9, 8e9, 2e9, 2e9, 2e9}

var dataset = []call{
	{id: "e1", agent: "planner", model: "claude-sonnet-4-5", in: 10000, out: 1000, cached: 6000, cw: 1000, cw1: 1000,
		latency: 1200, user: "u1", session: "s1", workflow: "wf-a", age: 10 * time.Minute},
	{id: "e2", agent: "planner", model: "claude-sonnet-4-5", in: 2000, out: 500, billing: "subscription", latency: 800,
		user: "u2", age: 2 * time.Hour},
	{id: "e3", agent: "coder", model: "gpt-4o-mini", in: 50000, out: 2000, cached: 20000, cw: 5000, fail: true,
		latency: 3000, user: "u1", session: "s2", tool: "grep", age: 3 * time.Hour},
	{id: "e4", agent: "coder", model: "gpt-4-turbo", in: 1000, out: 100, cached: 500, billing: "api", age: 20 * time.Hour},
	{id: "e5", agent: "reviewer", model: "acme-llm-9000", in: 1000, out: 500, latency: 500, user: "u3", age: 50 * time.Minute},
	{id: "e6", agent: "reviewer", model: "claude-sonnet-4-5", in: 1000, out: 100, client: "0.25", workflow: "wf-a",
		tool: "search", session: "s1", age: 5 * time.Hour},
	{id: "e7", agent: "coder", model: "claude-sonnet-4-5", in: 3000, out: 300, billing: "subscription", user: "u1",
		fail: true, latency: 100, age: 30 * time.Hour},
	{id: "e8", agent: "planner", model: "gpt-4o-mini", in: 1000, out: 100, cached: 400, user: "u2", age: 8 * 24 * time.Hour},
	{id: "e9", agent: "coder", model: "gpt-4-turbo", in: 1000, out: 1000, workflow: "wf-b", user: "u3", age: 40 * 24 * time.Hour},
	{id: "e10", agent: "planner", model: "claude-sonnet-4-5", in: 1000, out: 1000, user: "u1", age: 100 * 24 * time.Hour},
	{id: "e12", agent: "coder", model: "gpt-4o-mini", in: 2000, out: 200, user: "u1", latency: 900, age: 60 * 24 * time.Hour},
	{id: "e11", agent: "reviewer", model: "acme-llm-9000", in: 1000, out: 100, client: "0.1", billing: "subscription",
		latency: 700, age: 4 * time.Hour},
}

// body is the call as POST /v1/events/batch takes it.
func (c call) body(now time.Time) map[string]any {
	e := map[string]any{"event_id": c.id, "agent_name": c.agent, "model": c.model, "input_tokens": c.in,
		"output_tokens": c.out, "timestamp": c.at(now).Format(time.RFC3339)}
	meta := map[string]any{}
	set := func(m map[string]any, k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set(meta, "billing", c.billing)
	set(meta, "user_id", c.user)
	set(meta, "session_id", c.session)
	set(e, "workflow", c.workflow)
	set(e, "tool_name", c.tool)
	if len(meta) > 0 {
		e["metadata"] = meta
	}
	for k, v := range map[string]int64{"cached_tokens": c.cached, "cache_write_tokens": c.cw, "cache_write_1h_tokens": c.cw1, "latency_ms": c.latency} {
		if v != 0 {
			e[k] = v
		}
	}
	if c.fail {
		e["success"] = false
	}
	if c.client != "" {
		e["cost"] = json.Number(c.client)
	}
	return e
}

func (c call) at(now time.Time) time.Time { return now.Add(-c.age).Truncate(time.Second) }

// priced is what the server must have stored for c under cat.
type priced struct {
	call
	cost, read, premium int64
	unpriced            bool
	ts                  time.Time
}

func price(t *testing.T, c call, cat map[string]rates, now time.Time) priced {
	r, known := cat[c.model]
	p := priced{call: c, unpriced: !known, ts: c.at(now)}
	perM := func(tokens, rate int64) int64 {
		if tokens*rate%1_000_000 != 0 {
			t.Fatalf("%s: %d tokens at %d is not a whole nano-dollar", c.id, tokens, rate)
		}
		return tokens * rate / 1_000_000
	}
	if known {
		p.cost = perM(c.in-c.cached-c.cw-c.cw1, r[0]) + perM(c.out, r[1]) + perM(c.cached, r[2]) + perM(c.cw, r[3]) + perM(c.cw1, r[4])
		p.read = perM(c.cached, r[0]-r[2])
		p.premium = perM(c.cw, r[3]-r[0]) + perM(c.cw1, r[4]-r[0])
	}
	if c.client != "" {
		p.cost = decimalNano(t, c.client)
	}
	return p
}

// agg are the sums of a set of calls.
type agg struct {
	calls, in, out, tokens, cached, writes, cost, sub, latSum, latN, ok, unpriced, read, premium, withCache int64
}

func (a *agg) add(p priced) {
	a.calls++
	a.in += p.in
	a.out += p.out
	a.tokens += p.in + p.out
	a.cached += p.cached
	a.writes += p.cw + p.cw1
	a.cost += p.cost
	if p.billing == "subscription" {
		a.sub += p.cost
	}
	if p.latency != 0 {
		a.latSum += p.latency
		a.latN++
	}
	if !p.fail {
		a.ok++
	}
	if p.unpriced {
		a.unpriced++
	}
	a.read += p.read
	a.premium += p.premium
	if p.cached+p.cw+p.cw1 > 0 {
		a.withCache++
	}
}

// keyOf is a call's value for a by/{dimension} dimension ("" = none).
func keyOf(p priced, dim string) string {
	switch dim {
	case "agent":
		return p.agent
	case "model":
		return p.model
	case "billing":
		if p.billing == "" {
			return "api"
		}
		return p.billing
	case "user":
		return p.user
	case "session":
		return p.session
	case "workflow":
		return p.workflow
	}
	return p.tool
}

type keyed struct {
	key string
	agg
}

// group sums calls per key of dim, sorted by cost desc then key.
func group(calls []priced, dim string) []keyed {
	m := map[string]*agg{}
	for _, p := range calls {
		k := keyOf(p, dim)
		if k == "" {
			continue
		}
		if m[k] == nil {
			m[k] = &agg{}
		}
		m[k].add(p)
	}
	out := make([]keyed, 0, len(m))
	for k, a := range m {
		out = append(out, keyed{k, *a})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].cost != out[j].cost {
			return out[i].cost > out[j].cost
		}
		return out[i].key < out[j].key
	})
	return out
}

// pct is num ÷ den × 100 with two decimals, rounded half up; nil over nothing.
func pct(num, den int64) any { return hundredths(num*100, den) }

func mean(sum, n int64) any { return hundredths(sum, n) }

func hundredths(num, den int64) any {
	if den == 0 {
		return nil
	}
	return float64((num*100*2+den)/(2*den)) / 100
}

func decimalNano(t *testing.T, dec string) int64 {
	whole, frac, _ := strings.Cut(dec, ".")
	frac = (frac + "000000000")[:9]
	var w, f int64
	if _, err := fmt.Sscanf(whole+" "+frac, "%d %d", &w, &f); err != nil {
		t.Fatalf("%q is not a decimal: %v", dec, err)
	}
	return w*1_000_000_000 + f
}
