package apiserver

import (
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/pricing"
)

// With mail configured, an admin address counts only once its owner has
// proved it: whoever registered it first must not inherit admin rights.
func TestDeploymentAdminMustBeVerifiedWhenMailIsConfigured(t *testing.T) {
	e := newEnv(t)
	admin := e.register("admin")
	deps := e.deps(zap.NewNop())
	deps.AdminEmails = []string{admin.Email}
	var cat atomic.Pointer[pricing.Catalogue]
	cat.Store(pricing.Builtin())
	deps.Catalogue = &cat
	h := New(deps).Handler()
	body := map[string]any{"start": e.clock.Now().Add(-time.Hour).Format(time.RFC3339),
		"end": e.clock.Now().Format(time.RFC3339), "dry_run": true}

	r := e.doAs(h, "POST", "/v1/pricing/reprice", admin.Access, body)
	if r.Status != 403 {
		t.Fatalf("unverified admin: status %d, want 403: %s", r.Status, r.Raw)
	}
	e.verify(admin)
	e.must(e.doAs(h, "POST", "/v1/pricing/reprice", admin.Access, body), 200)

	other := e.register("other")
	e.verify(other)
	if r := e.doAs(h, "POST", "/v1/pricing/reprice", other.Access, body); r.Status != 403 {
		t.Fatalf("a verified non-admin: status %d", r.Status)
	}
}
