package apiserver

import (
	"fmt"
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

// Without mail no address can be confirmed, so an invitation must still be
// answerable by the account registered under the invited address.
func TestInvitationsWorkWithoutMail(t *testing.T) {
	e := newEnv(t)
	deps := e.deps(zap.NewNop())
	deps.Accounts.Mailer = nil
	h := New(deps).Handler()
	owner := e.register("owner")
	email := fmt.Sprintf("invitee%d@example.com", userSeq.Add(1))
	e.must(e.doAs(h, "POST", "/v1/projects/"+owner.ProjectID+"/members", owner.Access,
		map[string]string{"email": email, "role": "viewer"}), 201)
	reg := e.must(e.doAs(h, "POST", "/v1/auth/register", "", map[string]any{"email": email, "password": testPassword,
		"accept_terms": true, "accept_privacy": true, "terms_version": testPolicy, "privacy_version": testPolicy}), 201)
	token := reg.str("access_token")
	if r := e.must(e.doAs(h, "GET", "/v1/projects/invitations/pending", token, nil), 200); len(r.Body["invitations"].([]any)) != 1 {
		t.Fatalf("pending: %s", r.Raw)
	}
	r := e.must(e.doAs(h, "POST", "/v1/projects/"+owner.ProjectID+"/invitations/accept", token, nil), 200)
	if r.str("role") != "viewer" {
		t.Fatalf("accept: %s", r.Raw)
	}
}
