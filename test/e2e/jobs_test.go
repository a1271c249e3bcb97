package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/mail/smtptest"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// fastRetries makes failed jobs come back within a second.
var fastRetries = map[string]string{"LLMCOST_JOBS_RETRY_MIN": "200ms", "LLMCOST_JOBS_RETRY_MAX": "1s"}

func withEnv(base map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{base, more} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// registerOn creates an account on s; its verification mail is queued.
func registerOn(t *testing.T, s *service, email string) {
	t.Helper()
	s.call(t, "POST", "/v1/auth/register", "", map[string]any{"email": email, "password": acctPassword, "name": "jobs",
		"accept_terms": true, "accept_privacy": true, "terms_version": "2026-01-01", "privacy_version": "2026-01-01"}).
		must(t, http.StatusCreated)
}

func smtpEnv(host, port string) map[string]string {
	return map[string]string{"LLMCOST_SMTP_HOST": host, "LLMCOST_SMTP_PORT": port, "LLMCOST_SMTP_STARTTLS": "false"}
}

func TestAMailSentWhileTheSMTPServerIsDownArrivesWhenItComesBack(t *testing.T) {
	addr := freePort(t) // nothing listens there yet
	host, port, _ := net.SplitHostPort(addr)
	s := start(t, withEnv(smtpEnv(host, port), fastRetries))
	registerOn(t, s, "late@example.com")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.stderr.String(), "e-mail could not be sent; will retry") {
		if time.Now().After(deadline) {
			t.Fatalf("no failed attempt logged within 10s:\n%s", s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	smtp := smtptest.StartAt(t, addr)
	tok := smtp.Wait(t, "late@example.com", "Confirm your e-mail", 1).Token(t)
	r := s.call(t, "POST", "/v1/auth/verify-email", "", map[string]string{"token": tok}).must(t, http.StatusOK)
	if r.Body["email_verified"] != true {
		t.Fatalf("verify with the late mail's token: %s", r.Raw)
	}
	time.Sleep(time.Second)
	if n := smtp.Count("late@example.com", "Confirm your e-mail"); n != 1 {
		t.Fatalf("%d verification mails arrived, want exactly 1", n)
	}
}

// fetchLog is a price source that serves the fixture and records when it
// was fetched.
type fetchLog struct {
	mu    sync.Mutex
	times []time.Time
	srv   *httptest.Server
}

func newFetchLog(t *testing.T) *fetchLog {
	t.Helper()
	f := &fetchLog{}
	body := pricingFixture(t)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		f.times = append(f.times, time.Now())
		f.mu.Unlock()
		_, _ = w.Write(body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// since returns the fetches at or after t0.
func (f *fetchLog) since(t0 time.Time) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Time
	for _, t := range f.times {
		if !t.Before(t0) {
			out = append(out, t)
		}
	}
	return out
}

// onePerInterval fails unless the fetches look like one schedule: at most
// one per interval, never two within half an interval, as two schedules
// out of phase would be.
func onePerInterval(t *testing.T, times []time.Time, window, interval time.Duration) {
	t.Helper()
	if n, most := len(times), int(window/interval)+1; n < 2 || n > most {
		t.Fatalf("%d price fetches in %s at a %s interval with two instances, want 2..%d", n, window, interval, most)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < interval/2 {
			t.Fatalf("two price fetches %s apart at a %s interval: each instance syncs on its own?", gap, interval)
		}
	}
}

func TestTwoInstancesOnOneDatabaseRunEachJobOnce(t *testing.T) {
	smtp := smtptest.Start(t)
	src := newFetchLog(t)
	env := withEnv(smtpEnv(smtp.Host(), strconv.Itoa(smtp.Port())), fastRetries)
	env = withEnv(env, map[string]string{"LLMCOST_DATABASE_URL": pgtest.NewDatabase(t),
		"LLMCOST_PRICING_SYNC_URL": src.srv.URL + "/prices.json", "LLMCOST_PRICING_SYNC_INTERVAL": "1s",
		"LLMCOST_PRICING_SYNC_TIMEOUT": "500ms"})
	a, b := start(t, env), start(t, env)
	for _, s := range []*service{a, b} {
		s.call(t, "GET", "/v1/health", "", nil).must(t, http.StatusOK)
		// The instance that did not run a sync loads the catalogue another put in force.
		s.waitStatus(t, "synced catalogue", func(st map[string]any) bool { return st["mode"] == "network" })
	}
	registerOn(t, a, "via-a@example.com")
	registerOn(t, b, "via-b@example.com")

	t0 := time.Now()
	const window = 6 * time.Second
	time.Sleep(window)
	onePerInterval(t, src.since(t0), window, time.Second)
	for _, to := range []string{"via-a@example.com", "via-b@example.com"} {
		smtp.Wait(t, to, "Confirm your e-mail", 1)
		if n := smtp.Count(to, "Confirm your e-mail"); n != 1 {
			t.Errorf("%d verification mails to %s, want exactly 1", n, to)
		}
	}
	// The sync goes on when the first instance (likely the leader) stops.
	// The other instance takes the leadership over at its next election
	// attempt (River's elector tries every few seconds), so allow 20 s.
	a.stop(t)
	t1 := time.Now()
	for len(src.since(t1)) == 0 {
		if time.Since(t1) > 20*time.Second {
			t.Fatalf("no sync within 20s after the first instance stopped")
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.call(t, "GET", "/v1/health", "", nil).must(t, http.StatusOK)
}
