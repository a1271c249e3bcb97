package apiserver

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

func TestAccessTokenLivesExactly3600Seconds(t *testing.T) {
	e := newEnv(t)
	u := e.register("ttl")
	r := e.must(e.login(u.Email, testPassword, false), 200)
	if r.Body["expires_in"] != float64(3600) || r.str("token_type") != "bearer" {
		t.Fatalf("login payload: %s", r.Raw)
	}
	access := r.str("access_token")
	e.clock.Advance(3599 * time.Second)
	e.must(e.do("GET", "/v1/auth/me", access, nil), 200)
	e.clock.Advance(time.Second)
	e.must(e.do("GET", "/v1/auth/me", access, nil), 401)
	// The refresh token still works and mints a fresh hour.
	r = e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r.str("refresh_token")}), 200)
	if r.Body["expires_in"] != float64(3600) || r.obj("user")["email"] != u.Email {
		t.Fatalf("refresh payload: %s", r.Raw)
	}
	e.must(e.do("GET", "/v1/auth/me", r.str("access_token"), nil), 200)
}

// TestSessionLength keeps a session alive by refreshing every 6 days and
// checks that it still refreshes one second before its absolute end (7 or
// 30 days after login) and no longer one second after.
func TestSessionLength(t *testing.T) {
	for _, tc := range []struct {
		remember bool
		life     time.Duration
	}{{false, 7 * 24 * time.Hour}, {true, 30 * 24 * time.Hour}} {
		e := newEnv(t)
		u := e.register("life")
		r := e.must(e.login(u.Email, testPassword, tc.remember), 200)
		refresh, elapsed := r.str("refresh_token"), time.Duration(0)
		step := 6 * 24 * time.Hour
		for elapsed+step < tc.life {
			e.clock.Advance(step)
			elapsed += step
			refresh = e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": refresh}), 200).str("refresh_token")
		}
		e.clock.Advance(tc.life - elapsed - time.Second)
		r = e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": refresh}), 200)
		// One second left: the access token is capped by the session's end.
		if r.Body["expires_in"] != float64(1) {
			t.Errorf("remember_me=%v: expires_in %v one second before the end", tc.remember, r.Body["expires_in"])
		}
		e.clock.Advance(2 * time.Second)
		e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r.str("refresh_token")}), 401)
		e.must(e.do("GET", "/v1/auth/me", r.str("access_token"), nil), 401)
	}
}

func TestRefreshRotationAndReuseDetection(t *testing.T) {
	e := newEnv(t)
	u := e.register("rot")
	r1 := u.Refresh
	p2 := e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r1}), 200)
	if p2.str("refresh_token") == r1 || p2.str("access_token") == u.Access {
		t.Fatal("refresh did not rotate the pair")
	}
	// The old access token of the session was replaced.
	e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 401)
	e.must(e.do("GET", "/v1/auth/me", p2.str("access_token"), nil), 200)

	// R1 again: refused, and the pair it was rotated into dies with it.
	reuse := e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": r1}), 401)
	if reuse.obj("error")["code"] != "unauthorized" {
		t.Fatalf("reuse reply %s", reuse.Raw)
	}
	e.must(e.do("GET", "/v1/auth/me", p2.str("access_token"), nil), 401)
	e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": p2.str("refresh_token")}), 401)
	if e.logs.FilterMessage("refresh token reused: session revoked").Len() != 1 {
		t.Error("the reuse was not logged")
	}
	// Other sessions of the user are untouched.
	other := e.must(e.login(u.Email, testPassword, false), 200)
	e.must(e.do("GET", "/v1/auth/me", other.str("access_token"), nil), 200)

	e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{}), 422)
	e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": "lcr_made_up"}), 401)
	e.must(e.do("POST", "/v1/auth/refresh", "", "{"), 400)
}

func TestConcurrentRefreshesWithOneTokenSucceedOnce(t *testing.T) {
	e := newEnv(t)
	for round := 0; round < 5; round++ {
		u := e.register("race")
		const n = 8
		var wg sync.WaitGroup
		statuses := make([]int, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				statuses[i] = e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": u.Refresh}).Status
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for _, s := range statuses {
			switch s {
			case http.StatusOK:
				won++
			case http.StatusUnauthorized:
			default:
				t.Fatalf("round %d: unexpected status %d", round, s)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of %d concurrent refreshes succeeded: %v", round, won, n, statuses)
		}
	}
}

func TestLogoutEndsOnlyThatSessionAndLogoutAllEndsEvery(t *testing.T) {
	e := newEnv(t)
	u := e.register("out")
	a := e.must(e.login(u.Email, testPassword, false), 200)
	b := e.must(e.login(u.Email, testPassword, true), 200)
	e.must(e.do("POST", "/v1/auth/logout", a.str("access_token"), nil), 204)
	e.must(e.do("GET", "/v1/auth/me", a.str("access_token"), nil), 401)
	e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": a.str("refresh_token")}), 401)
	e.must(e.do("GET", "/v1/auth/me", b.str("access_token"), nil), 200)
	e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 200)

	e.must(e.do("POST", "/v1/auth/logout-all", b.str("access_token"), nil), 204)
	for _, tok := range []string{b.str("access_token"), u.Access} {
		e.must(e.do("GET", "/v1/auth/me", tok, nil), 401)
	}
	for _, tok := range []string{b.str("refresh_token"), u.Refresh} {
		e.must(e.do("POST", "/v1/auth/refresh", "", map[string]string{"refresh_token": tok}), 401)
	}
	e.must(e.do("POST", "/v1/auth/logout", "", nil), 401)
	e.must(e.do("POST", "/v1/auth/logout-all", u.Key, nil), 401)
}

func TestProfileReadDebouncesLastActive(t *testing.T) {
	e := newEnv(t)
	u := e.register("me")
	t0 := e.clock.Now()
	r := e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 200)
	if r.str("last_active_at") != ts(t0) || r.Body["email_verified"] != false || r.Body["has_password"] != true {
		t.Fatalf("profile %s", r.Raw)
	}
	e.clock.Advance(4*time.Minute + 59*time.Second)
	if got := e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 200).str("last_active_at"); got != ts(t0) {
		t.Fatalf("last_active_at moved within 5 minutes: %s", got)
	}
	e.clock.Advance(time.Second)
	if got := e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 200).str("last_active_at"); got != ts(e.clock.Now()) {
		t.Fatalf("last_active_at not updated after 5 minutes: %s", got)
	}

	r = e.must(e.do("PATCH", "/v1/auth/me", u.Access, map[string]string{"name": "  Ann Example "}), 200)
	if r.str("name") != "Ann Example" || r.str("email") != u.Email {
		t.Fatalf("update %s", r.Raw)
	}
	long := make([]rune, 201)
	for i := range long {
		long[i] = 'x'
	}
	bad := e.must(e.do("PATCH", "/v1/auth/me", u.Access, map[string]string{"name": string(long)}), 422)
	if bad.obj("error")["code"] != "validation_failed" {
		t.Fatalf("422 body %s", bad.Raw)
	}
	e.must(e.do("PATCH", "/v1/auth/me", u.Access, map[string]any{"name": 5}), 422)
	e.must(e.do("PATCH", "/v1/auth/me", u.Access, map[string]any{"nickname": "x"}), 400)
	e.must(e.do("PATCH", "/v1/auth/me", "", map[string]string{"name": "x"}), 401)
	if got := e.must(e.do("GET", "/v1/auth/me", u.Access, nil), 200).str("name"); got != "Ann Example" {
		t.Fatalf("a refused update changed the name to %q", got)
	}
}
