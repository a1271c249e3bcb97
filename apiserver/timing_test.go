package apiserver

import (
	"slices"
	"testing"
	"time"
)

// TestRepliesDoNotRevealAccounts: a login for an unknown address, a wrong
// password and a password-less (social) account get the same reply in
// about the same time, and so do reset requests for known and unknown
// addresses. Runs are interleaved so machine load hits each kind alike.
func TestRepliesDoNotRevealAccounts(t *testing.T) {
	e := newEnv(t)
	u := e.register("timing")
	e.must(e.do("POST", "/v1/auth/google", "", map[string]string{
		"id_token": e.google.Sign(e.google.Claims("g-t", "social@example.com", true, e.clock.Now()))}), 200)
	kinds := map[string]string{"wrong password": u.Email, "unknown address": "nobody@example.com", "social account": "social@example.com"}
	times, bodies := map[string][]time.Duration{}, map[string]string{}
	for i := 0; i < 15; i++ {
		for kind, email := range kinds {
			start := time.Now()
			r := e.login(email, "not the password", false)
			times[kind] = append(times[kind], time.Since(start))
			if r.Status != 401 {
				t.Fatalf("%s: status %d", kind, r.Status)
			}
			if bodies[kind] = r.Raw; bodies[kind] != bodies["wrong password"] && bodies["wrong password"] != "" {
				t.Fatalf("%s answers %s, a wrong password %s", kind, r.Raw, bodies["wrong password"])
			}
		}
	}
	// Each kind spends one argon2 verification (~20 ms); a fast path would
	// take well under a millisecond. The fastest of 15 runs shows the work
	// done even on a loaded machine, where medians wander.
	ref := slices.Min(times["wrong password"])
	for kind := range kinds {
		if got := slices.Min(times[kind]); got < ref/2 || got > ref*2 {
			t.Errorf("%s: fastest %s, a wrong password's fastest %s", kind, got, ref)
		}
	}

	reset := map[string][]time.Duration{}
	for i := 0; i < 3; i++ { // three each: the per-address limit
		for _, email := range []string{u.Email, "nobody@example.com"} {
			start := time.Now()
			e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": email}), 204)
			reset[email] = append(reset[email], time.Since(start))
		}
	}
	// Both reply before any look-up happens, so neither waits on the database.
	known, unknown := slices.Min(reset[u.Email]), slices.Min(reset["nobody@example.com"])
	if d := known - unknown; d > 5*time.Millisecond || -d > 5*time.Millisecond {
		t.Errorf("reset request: known %s, unknown %s", known, unknown)
	}
}
