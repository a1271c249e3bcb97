// Package providerstest runs fake Anthropic and OpenAI admin APIs on
// loopback over HTTPS for tests. They answer in the documented shapes,
// page by page, and check every request as strictly as the real APIs are
// documented to: the credential headers, anthropic-version, required and
// known parameters and their ranges, and that a page cursor is one they
// issued. A request a real API would refuse is refused here too, so a
// client that would fail in production fails its test.
package providerstest

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Faults make the next requests fail as a provider does.
type Faults struct {
	// RateLimited answers this many next requests 429 with Retry-After.
	RateLimited int
	// RetryAfter is the Retry-After of those answers, in seconds.
	RetryAfter int
	// Down answers every request 503 while set.
	Down bool
}

// Server is the common part of both fakes.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	key      string
	faults   Faults
	requests []string // path?query of every request, in order
	pageDays int
}

func newServer(t testing.TB, key string, h func(s *Server, w http.ResponseWriter, r *http.Request)) *Server {
	s := &Server{t: t, key: key, pageDays: 7}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.URL.Path+"?"+r.URL.RawQuery)
		f := &s.faults
		switch {
		case f.Down:
			s.mu.Unlock()
			fail(w, http.StatusServiceUnavailable, "overloaded")
			return
		case f.RateLimited > 0:
			f.RateLimited--
			w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
			s.mu.Unlock()
			fail(w, http.StatusTooManyRequests, "rate limited")
			return
		}
		s.mu.Unlock()
		if r.Method != http.MethodGet {
			fail(w, http.StatusMethodNotAllowed, "GET only")
			return
		}
		h(s, w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the fake's origin (https://127.0.0.1:port).
func (s *Server) URL() string { return s.srv.URL }

// Client trusts the fake's certificate.
func (s *Server) Client() *http.Client {
	c := s.srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// CertFile writes the fake's certificate as PEM to a file in the test's
// temporary directory and returns its path: a process under test trusts
// the fake through its extra-CA setting, as it would an egress proxy.
func (s *Server) CertFile() string {
	path := filepath.Join(s.t.TempDir(), "provider-ca.pem")
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	if err := os.WriteFile(path, block, 0o600); err != nil {
		s.t.Fatal(err)
	}
	return path
}

// SetKey changes the admin key the fake accepts (a revoked key).
func (s *Server) SetKey(key string) { s.mu.Lock(); s.key = key; s.mu.Unlock() }

// SetFaults sets the faults of the next requests.
func (s *Server) SetFaults(f Faults) { s.mu.Lock(); s.faults = f; s.mu.Unlock() }

// SetPageDays sets how many daily buckets a page holds at most (the
// client's limit permitting), so a month spans several pages.
func (s *Server) SetPageDays(n int) { s.mu.Lock(); s.pageDays = n; s.mu.Unlock() }

// Requests are the requests served so far, as path?query.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) currentKey() string { s.mu.Lock(); defer s.mu.Unlock(); return s.key }

func (s *Server) days(limit int) int { s.mu.Lock(); defer s.mu.Unlock(); return min(limit, s.pageDays) }

// errorBody is the shape both providers use: {"error": {"message", "type"}}.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error",
		"error": map[string]string{"type": http.StatusText(status), "message": msg}})
}

func answer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// checkParams refuses a parameter not in known: the real APIs answer 400
// to a misspelt one.
func checkParams(q map[string][]string, known ...string) error {
	for k := range q {
		if !slices.Contains(known, k) {
			return fmt.Errorf("unknown parameter %q", k)
		}
	}
	return nil
}

// cursor encodes the first bucket of the next page as an opaque token.
func cursor(t time.Time) string {
	return "page_" + base64.StdEncoding.EncodeToString([]byte(t.UTC().Format(time.RFC3339)))
}

func fromCursor(c string) (time.Time, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(c, "page_"))
	if err != nil || !strings.HasPrefix(c, "page_") {
		return time.Time{}, fmt.Errorf("page: not a cursor this server issued")
	}
	return time.Parse(time.RFC3339, string(raw))
}

// window resolves the buckets of one page: from start (or the cursor) up
// to end, at most n days; next is the following page's first bucket, zero
// at the end.
func window(start, end time.Time, page string, n int) (from, to, next time.Time, err error) {
	from = day(start)
	if page != "" {
		if from, err = fromCursor(page); err != nil {
			return
		}
		if from.Before(day(start)) || !from.Before(end) {
			err = fmt.Errorf("page: cursor outside the requested range")
			return
		}
	}
	to = from.AddDate(0, 0, n)
	if !to.Before(end) {
		to = end
	} else {
		next = to
	}
	return
}

func day(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// scaled prints v / 10^scale as a plain decimal.
func scaled(v int64, scale int) string {
	neg := v < 0
	if neg {
		v = -v
	}
	digits := fmt.Sprintf("%0*d", scale+1, v)
	out := digits[:len(digits)-scale]
	if frac := strings.TrimRight(digits[len(digits)-scale:], "0"); frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
