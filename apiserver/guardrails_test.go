package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/event"
)

// guardCall is one call of the known batch.
type guardCall struct {
	id, agent, model, tool, trace string
	cost                          int64
	at                            time.Duration // before now
}

// knownCalls: reader's run r1 stays within its limits; run r2 uses a
// write tool twice, an undeclared tool, an undeclared model and goes over
// both per-run limits; untraced calls are not runs.
var knownCalls = []guardCall{
	{"c1", "reader", "gpt-4o-mini", "search", "r1", 100_000_000, 50 * time.Minute},
	{"c2", "reader", "gpt-4o-mini-2024-07-18", "search", "r1", 100_000_000, 49 * time.Minute},
	{"c3", "reader", "gpt-4o-mini", "search", "r2", 300_000_000, 40 * time.Minute},
	{"c4", "reader", "gpt-4o-mini", "delete_row", "r2", 300_000_000, 39 * time.Minute},
	// second piece
	{"c5", "reader", "gpt-4o-mini", "delete_row", "r2", 300_000_000, 38 * time.Minute},
	{"c6", "reader", "gpt-4o", "shell", "r2", 300_000_000, 37 * time.Minute},
	{"c7", "reader", "gpt-4o", "", "", 50_000_000, 30 * time.Minute},
	{"c8", "reader", "gpt-4o-mini", "lookup", "", 10_000_000, 20 * time.Minute},
	{"c9", "free", "o3", "delete_row", "f1", 900_000_000, 20 * time.Minute},
	{"c10", "off", "o3", "anything", "", 1_000_000, 10 * time.Minute},
}

func (e *env) writeCalls(project string, calls []guardCall) {
	e.t.Helper()
	now := e.clock.Now()
	evs := make([]event.Event, len(calls))
	for i, c := range calls {
		evs[i] = event.Event{ProjectID: project, EventID: c.id, AgentName: c.agent, Model: c.model, ToolName: c.tool,
			TraceID: c.trace, InputTokens: 10, OutputTokens: 5, TotalTokens: 15, CostNano: c.cost, Priced: true,
			Success: true, Source: "batch", Timestamp: now.Add(-c.at)}
		if c.trace != "" {
			evs[i].Workflow = "wf"
		}
	}
	if _, err := e.db.Write(context.Background(), evs, nil); err != nil {
		e.t.Fatal(err)
	}
}

// drain alerts the queued breaches and checks it took want queued rows.
func (e *env) drain(h *alerts.Hook, want int) {
	e.t.Helper()
	if n, err := h.Drain(context.Background(), e.db); err != nil || n != want {
		e.t.Fatalf("drain took %d queued rows (%v), want %d", n, err, want)
	}
}

func (e *env) setGuardrails(u user, project string) {
	e.t.Helper()
	base := "/v1/projects/" + project + "/guardrails"
	e.must(e.do("PUT", base, u.Access, map[string]any{"agent_name": "reader", "allowed_tools": []string{"search", "delete_row", "lookup"},
		"read_only": true, "allowed_models": []string{"gpt-4o-mini"}, "max_tool_calls_per_run": 2, "max_cost_per_run_usd": 1}), 201)
	e.must(e.do("PUT", base, u.Access, map[string]any{"agent_name": "free"}), 201)
	e.must(e.do("PUT", base, u.Access, map[string]any{"agent_name": "off", "allowed_tools": []string{}, "enabled": false}), 201)
	e.must(e.do("PUT", base+"/tool-tags", u.Access, map[string]string{"tool_name": "search", "access": "read"}), 200)
	e.must(e.do("PUT", base+"/tool-tags", u.Access, map[string]string{"tool_name": "delete_row", "access": "write"}), 200)
}

func agentsByName(t *testing.T, raw string) map[string]wire.AgentCompliance {
	var c wire.Compliance
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatal(err)
	}
	out := map[string]wire.AgentCompliance{}
	for _, a := range c.Agents {
		out[a.AgentName] = a
	}
	return out
}

func TestComplianceEveryBreachKindWholeAndInPieces(t *testing.T) {
	e := newEnv(t)
	hook := alerts.New(nil, e.clock.Now)
	e.db.Hook = hook
	u := e.register("guard")
	whole := e.must(e.do("POST", "/v1/projects", u.Access, map[string]string{"name": "whole"}), 201).str("id")
	pieces := e.must(e.do("POST", "/v1/projects", u.Access, map[string]string{"name": "pieces"}), 201).str("id")
	for _, p := range []string{whole, pieces} {
		e.setGuardrails(u, p)
	}
	e.writeCalls(whole, knownCalls)
	e.writeCalls(pieces, knownCalls[:4])
	// After the first piece: only the write tool has breached; no run is over a limit yet.
	first := agentsByName(t, e.must(e.do("GET", "/v1/guardrails/compliance?project_id="+pieces, u.Access, nil), 200).Raw)
	if got := kinds(first["reader"].Breaches); got != "write_in_readonly" {
		t.Errorf("after the first piece: breaches %s", got)
	}
	e.writeCalls(pieces, knownCalls[4:])

	a := agentsByName(t, e.must(e.do("GET", "/v1/guardrails/compliance?project_id="+whole, u.Access, nil), 200).Raw)
	b := agentsByName(t, e.must(e.do("GET", "/v1/guardrails/compliance?project_id="+pieces, u.Access, nil), 200).Raw)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("pieces differ from one batch:\n%s\n%s", ja, jb)
	}
	r := a["reader"]
	want := []string{
		"undeclared_tool shell 1 <nil> 1",
		"write_in_readonly delete_row 2 <nil> 2",
		"undeclared_model gpt-4o 2 <nil> 2",
		"tool_calls_over_limit r2 1 2 4",
		"run_cost_over_limit r2 1 1 1.2",
	}
	if len(r.Breaches) != len(want) {
		t.Fatalf("reader breaches: %+v", r.Breaches)
	}
	for i, br := range r.Breaches {
		lim := "<nil>"
		if br.Limit != nil {
			lim = br.Limit.String()
		}
		if got := fmt.Sprintf("%s %s %d %s %s", br.Kind, br.Subject, br.Count, lim, br.Observed); got != want[i] {
			t.Errorf("breach %d: got %q, want %q", i, got, want[i])
		}
		if br.LastSeen == nil {
			t.Errorf("breach %d has no last_seen", i)
		}
	}
	if r.Status != "breach" || r.TotalCalls != 8 || r.TrackedToolCalls != 7 || r.RunsSeen != 2 {
		t.Errorf("reader: status %s calls %d tool calls %d runs %d", r.Status, r.TotalCalls, r.TrackedToolCalls, r.RunsSeen)
	}
	if fmt.Sprint(r.UnknownAccessTools) != "[lookup shell]" {
		t.Errorf("unknown access tools %v", r.UnknownAccessTools)
	}
	if r.RunStats == nil || r.RunStats.Runs != 2 || r.RunStats.MaxToolCalls != 4 || r.RunStats.MaxCost.String() != "1.2" {
		t.Errorf("run stats %+v", r.RunStats)
	}
	var series int64
	for _, p := range r.BreachSeries {
		series += p.Count
	}
	if len(r.BreachSeries) < 8 || series != 7 {
		t.Errorf("breach series (%d days) sums to %d, want 7: %+v", len(r.BreachSeries), series, r.BreachSeries)
	}
	for _, tu := range r.ToolUsage {
		if tu.ToolName == "delete_row" && (tu.Access != "write" || tu.BreachKind == nil || *tu.BreachKind != "write_in_readonly") {
			t.Errorf("delete_row usage %+v", tu)
		}
	}
	for _, mu := range r.ModelUsage {
		if mu.Permitted != (mu.Model != "gpt-4o") {
			t.Errorf("model usage %+v", mu)
		}
	}
	if a["free"].Status != "compliant" || len(a["free"].Breaches) != 0 || a["off"].Status != "disabled" {
		t.Errorf("free %s %v, off %s", a["free"].Status, a["free"].Breaches, a["off"].Status)
	}

	// Alerts: ingest queued the breaches; the drain alerts them, one
	// notification per breach found, the write tool alerted once although
	// both pieces contained it.
	n := e.must(e.do("GET", "/v1/notifications", u.Access, nil), 200)
	if n.Body["total"].(float64) != 0 {
		t.Fatalf("notifications before the drain: %s", n.Raw)
	}
	e.drain(hook, 3) // the whole batch and both pieces
	n = e.must(e.do("GET", "/v1/notifications", u.Access, nil), 200)
	if n.Body["total"].(float64) != 10 || n.Body["unread"].(float64) != 10 {
		t.Fatalf("notifications: %s", n.Raw)
	}
	e.writeCalls(pieces, []guardCall{{"c11", "reader", "gpt-4o-mini", "delete_row", "", 1, time.Minute}})
	e.drain(hook, 0) // judged alerted: nothing queued
	n = e.must(e.do("GET", "/v1/notifications", u.Access, nil), 200)
	if n.Body["total"].(float64) != 10 {
		t.Fatalf("a breach repeated within the hour alerted again: %s", n.Raw)
	}
	e.clock.Advance(time.Hour)
	u.Access = e.must(e.login(u.Email, testPassword, false), 200).str("access_token")
	e.writeCalls(pieces, []guardCall{{"c12", "reader", "gpt-4o-mini", "delete_row", "", 1, time.Minute}})
	e.drain(hook, 1)
	n = e.must(e.do("GET", "/v1/notifications", u.Access, nil), 200)
	if n.Body["total"].(float64) != 11 {
		t.Fatalf("an hour later the breach must alert again: %s", n.Raw)
	}
	first0 := n.Body["notifications"].([]any)[0].(map[string]any)
	if first0["type"] != "guardrail.breach" || first0["data"].(map[string]any)["subject"] != "delete_row" {
		t.Errorf("newest notification: %v", first0)
	}
	e.must(e.do("POST", "/v1/notifications/"+first0["id"].(string)+"/read", u.Access, nil), 204)
	n = e.must(e.do("GET", "/v1/notifications", u.Access, nil), 200)
	if n.Body["unread"].(float64) != 10 {
		t.Errorf("unread after one read: %s", n.Raw)
	}
}

func kinds(bs []wire.BreachRecord) string {
	out := ""
	for i, b := range bs {
		if i > 0 {
			out += ","
		}
		out += b.Kind
	}
	return out
}
