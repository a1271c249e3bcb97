package apiserver

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/timings"
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
	var verifications []time.Duration
	for i := 0; i < 15; i++ {
		start := time.Now()
		authn.BurnVerify("not the password")
		verifications = append(verifications, time.Since(start))
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
	// Each kind must spend one argon2 verification; a fast path (no
	// verification for an unknown or password-less account) would take well
	// under a millisecond. The floor is that verification's own cost, the
	// fastest of one timed in each round, between the logins, so a machine
	// whose load comes and goes slows both sides alike (timed apart from
	// the logins, a burst of load on a shared machine can double it); the
	// fastest of 15 runs shows the work done. Medians of the kinds must also
	// agree within a factor of three.
	floor := slices.Min(verifications)
	ref := timings.Median(times["wrong password"])
	for kind := range kinds {
		if got := slices.Min(times[kind]); got < floor/2 {
			t.Errorf("%s: fastest %s, under half of one password verification (%s)", kind, got, floor)
		}
		if got := timings.Median(times[kind]); got < ref/3 || got > ref*3 {
			t.Errorf("%s: median %s, a wrong password's median %s", kind, got, ref)
		}
	}

	// Reset requests: four known and four unknown addresses, three each
	// (the per-address limit), interleaved. A known address's mail is
	// prepared in the background after its reply; the pause before each
	// timed request lets that work finish, so what is compared is the
	// reply path alone, which must not look the address up.
	known := []string{u.Email}
	for _, p := range []string{"timing-b", "timing-c", "timing-d"} {
		known = append(known, e.register(p).Email)
	}
	var knownTimes, unknownTimes []time.Duration
	for i := 0; i < 3; i++ {
		for j, email := range known {
			for _, addr := range []string{email, fmt.Sprintf("nobody-%d@example.com", j)} {
				time.Sleep(20 * time.Millisecond)
				start := time.Now()
				e.must(e.do("POST", "/v1/auth/password/reset-request", "", map[string]string{"email": addr}), 204)
				if took := time.Since(start); addr == email {
					knownTimes = append(knownTimes, took)
				} else {
					unknownTimes = append(unknownTimes, took)
				}
			}
		}
	}
	// Both reply before any look-up happens, so neither waits on it: the
	// fastest of twelve of each agree within 5 ms.
	kmin, umin := slices.Min(knownTimes), slices.Min(unknownTimes)
	if d := kmin - umin; d > 5*time.Millisecond || -d > 5*time.Millisecond {
		t.Errorf("reset request: known %s, unknown %s (fastest of %d each)", kmin, umin, len(knownTimes))
	}
}
