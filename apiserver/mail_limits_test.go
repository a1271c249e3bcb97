package apiserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/ratelimit"
	"github.com/llmcost/llmcost/internal/ratelimit/redistest"
)

// Two instances on one database (and, in the second run, one Redis)
// behind a load balancer: the password-reset limit (3 per address per
// rolling hour) and the verification-resend limit (3 per user per hour)
// hold for the deployment, not per instance, and so do the mails sent.
func TestMailLimitsHoldAcrossInstances(t *testing.T) {
	for _, store := range []string{"postgres", "redis"} {
		t.Run(store, func(t *testing.T) {
			e := newEnv(t)
			var redisURL string
			if store == "redis" {
				redisURL = redistest.Start(t)
			}
			var hs [2]http.Handler
			var srvs [2]*Server
			for i := range srvs {
				d := e.deps(e.srv.Logger)
				if store == "redis" { // each instance its own client
					r, err := ratelimit.NewRedis(redisURL, time.Minute)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(r.Close)
					d.MailLimits = r
				}
				srvs[i] = New(d)
				hs[i] = srvs[i].Handler()
				t.Cleanup(func() { srvs[i].Drain(t.Context()) })
			}
			u := e.register("shared")
			reset := func(i, status int) resp {
				return e.must(e.doAs(hs[i], "POST", "/v1/auth/password/reset-request", "", map[string]string{"email": u.Email}), status)
			}
			for i := range 3 {
				reset(i%2, 204)
				e.clock.Advance(10 * time.Minute)
			}
			r := reset(1, 429)
			if r.Header.Get("Retry-After") != "1800" || r.Body["retry_after"] != float64(1800) {
				t.Fatalf("4th via the other instance: Retry-After %q %s, want 1800 s (the first leaves the hour then)",
					r.Header.Get("Retry-After"), r.Raw)
			}
			reset(0, 429)
			for i := range 3 {
				if r := e.must(e.doAs(hs[i%2], "POST", "/v1/auth/verify-email/resend", u.Access, nil), 200); r.Body["verification_email_sent"] != true {
					t.Fatalf("resend %d: %s", i+1, r.Raw)
				}
			}
			e.must(e.doAs(hs[1], "POST", "/v1/auth/verify-email/resend", u.Access, nil), 429)
			for _, s := range srvs {
				s.Drain(t.Context())
			}
			if n := e.smtp.Count(u.Email, "Reset"); n != 3 {
				t.Fatalf("%d reset mails across both instances, want 3", n)
			}
			if n := e.smtp.Count(u.Email, "Confirm"); n != 4 { // registration + 3 resends
				t.Fatalf("%d verification mails across both instances, want 4", n)
			}
			// An hour after the first request one slot opens, on either.
			e.clock.Advance(30 * time.Minute)
			reset(1, 204)
			reset(0, 429)
		})
	}
}
