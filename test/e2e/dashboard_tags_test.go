package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/llmcost/llmcost/apiserver/wire"
)

// TestDashboardTagFilteredRunPages picks a tag in the workflows page's
// picker in a real browser: the page then shows only the runs whose first
// call carries that value, as the API narrowed to it answers, and keeps
// the filter on the link to the traces page, which is narrowed too.
func TestDashboardTagFilteredRunPages(t *testing.T) {
	s := start(t, nil)
	ctx := newBrowser(t)
	key, proj, session := registerInBrowser(t, s, ctx, "dashtags", "Tia")
	s.call(t, "PUT", "/v1/projects/"+proj+"/tags", session, map[string]any{"keys": []string{"team"}}).must(t, http.StatusOK)

	// Runs of two workflows: refund's first calls carry team payments,
	// lookup's search; a later call of a refund run carries search and
	// does not move its run.
	now := time.Now().UTC().Add(-time.Minute)
	var events []any
	for i, c := range []struct{ trace, workflow, team string }{
		{"refund-1", "refund", "payments"}, {"refund-1", "refund", "search"}, {"refund-2", "refund", "payments"},
		{"lookup-1", "lookup", "search"}, {"lookup-2", "lookup", "search"},
	} {
		events = append(events, map[string]any{"event_id": fmt.Sprint("t", i), "agent_name": "agent", "model": "gpt-4o",
			"input_tokens": 1000, "output_tokens": 100, "timestamp": now.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			"trace_id": c.trace, "workflow": c.workflow, "step_name": "answer", "span_id": fmt.Sprint("s", i),
			"metadata": map[string]any{"team": c.team}})
	}
	s.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": proj, "events": events}).must(t, http.StatusOK)

	// Pick the tag in the picker of the unfiltered workflows page.
	open(t, ctx, s.URL+"/workflows?range=24h&project="+proj)
	if got := text(t, ctx, "#workflows"); !strings.Contains(got, "refund") || !strings.Contains(got, "lookup") {
		t.Fatalf("unfiltered workflows: %q", got)
	}
	submit(t, ctx, "form.picker", map[string]string{"input[name=tag]": "team=payments"})
	api := decode[[]wire.WorkflowRow](t, s.call(t, "GET", "/v1/analytics/workflows?range=24h&tag.team=payments", key, nil).
		must(t, http.StatusOK))
	if len(api) != 1 || api[0].Workflow == nil || *api[0].Workflow != "refund" || api[0].Runs != 2 {
		t.Fatalf("the API's workflows for payments: %+v", api)
	}
	got := text(t, ctx, "#workflows")
	if !strings.Contains(got, "refund") || strings.Contains(got, "lookup") {
		t.Errorf("workflows for team=payments: %q", got)
	}
	if got := text(t, ctx, "#outcomes"); !strings.Contains(got, "refund") || strings.Contains(got, "lookup") {
		t.Errorf("outcomes for team=payments: %q", got)
	}
	shot(t, ctx, "workflows-tag")
	// The outcome row links to the workflow's traces, the filter kept.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#outcomes a[href^="/traces"]`))); err != nil {
		t.Fatalf("open the traces of refund: %v", err)
	}
	got = text(t, ctx, "#traces")
	if !strings.Contains(got, "refund-1") || !strings.Contains(got, "refund-2") || strings.Contains(got, "lookup") {
		t.Errorf("traces for team=payments: %q", got)
	}
	if got := outer(t, ctx, "form.picker input[name=tag]"); !strings.Contains(got, `value="team=payments"`) {
		t.Errorf("the traces page's picker: %s", got)
	}
	// The agents page takes the filter too.
	open(t, ctx, s.URL+"/agents?range=24h&tag=team%3Dsearch&project="+proj)
	if got := text(t, ctx, "#agents"); !strings.Contains(got, "agent") {
		t.Errorf("agents for team=search: %q", got)
	}
	if got := outer(t, ctx, "form.picker input[name=tag]"); !strings.Contains(got, `value="team=search"`) {
		t.Errorf("the agents page's picker: %s", got)
	}
}
