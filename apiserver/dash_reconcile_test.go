package apiserver

import (
	"net/http"
	"strings"
	"testing"
)

// The dashboard's reconciliation page shows the connections' state and the gaps of
// the report, and an invitation to connect when there is none.
func TestReconciliationPage(t *testing.T) {
	f := newReconFixture(t)
	e, u := f.e, f.u
	b := e.browser()
	b.signIn(u.Email)
	q := "?project=" + u.ProjectID + "&range=24h"
	b.must(b.get("/reconciliation"+q), http.StatusOK, `id="empty-state"`, "No provider connected")
	e.must(e.do("PUT", "/v1/projects/"+u.ProjectID+"/connections/anthropic", u.Access, map[string]any{"admin_key": testAnthropicKey,
		"workspace_ids": []string{"wrkspc_llm"}}), 201)
	f.sync(t)
	page := b.must(b.get("/reconciliation"+q), http.StatusOK, `id="gaps"`, "missing_calls", "unpriced_model",
		"the output rate differs", `id="connections"`, "last 30d")
	if strings.Contains(page.Body, "Secret-Key") {
		t.Fatal("the page shows the admin key")
	}
}
