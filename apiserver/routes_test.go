package apiserver

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/hostext"
)

// Every route of the table called with a method the table does not serve
// on its path answers 405 with an Allow header naming the route's own
// method and the error envelope; the pipeline's slots included, filled or
// not.
func TestWrongMethodOnEveryRoute(t *testing.T) {
	e := newEnv(t)
	served := map[string][]string{}
	for _, rt := range e.srv.table {
		served[rt.Path] = append(served[rt.Path], rt.Method)
	}
	for _, rt := range e.srv.table {
		wrong := http.MethodPut
		for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost} {
			if !slices.Contains(served[rt.Path], m) {
				wrong = m
				break
			}
		}
		path := fill(rt.Path, uuid.NewString(), uuid.NewString())
		r := e.do(wrong, path, "", nil)
		allow := strings.Split(r.Header.Get("Allow"), ", ")
		if r.Status != http.StatusMethodNotAllowed || !slices.Contains(allow, rt.Method) || slices.Contains(allow, wrong) {
			t.Errorf("%s %s (route %s %s): %d Allow %q", wrong, path, rt.Method, rt.Path, r.Status, r.Header.Get("Allow"))
		}
		if code := r.obj("error")["code"]; code != "method_not_allowed" {
			t.Errorf("%s %s: envelope %s", wrong, path, r.Raw)
		}
	}
}

// Allow lists exactly the methods served on the path; HEAD wherever GET.
func TestAllowListsThePathsMethods(t *testing.T) {
	e := newEnv(t)
	for path, allow := range map[string]string{
		"/v1/health":                          "GET, HEAD",
		"/v1/events/batch":                    "POST",
		"/v1/projects":                        "GET, HEAD, POST",
		"/v1/projects/" + uuid.NewString():    "GET, HEAD, PATCH, DELETE",
		"/v1/auth/me":                         "GET, HEAD, PATCH",
		"/v1/projects/x/members/y":            "PATCH, DELETE",
		"/v1/pricing/anthropic/claude-3-opus": "GET, HEAD",
	} {
		r := e.do(http.MethodPut, path, "", nil)
		if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != allow {
			t.Errorf("PUT %s: %d Allow %q, want %q", path, r.Status, r.Header.Get("Allow"), allow)
		}
	}
}

func TestUnknownPathIs404Envelope(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/nothing", "/v1", "/v1/nothing", "/v2/health", "/v1/projects/x/y/z"} {
		r := e.do(http.MethodGet, path, "", nil)
		if r.Status != http.StatusNotFound || r.obj("error")["code"] != "not_found" {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Raw)
		}
	}
}

// An empty slot is a 503 with Retry-After, never a 404 that makes an
// exporter drop its batch; filling and releasing it is seen at once.
func TestSlotsAnswer503UntilFilled(t *testing.T) {
	e := newEnv(t)
	k := e.register("slot").Key
	for _, path := range []string{"/v1/events/batch", "/v1/otlp/v1/logs", "/v1/otlp/v1/metrics", "/v1/otlp/v1/traces"} {
		r := e.do(http.MethodPost, path, k, "{}")
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || r.obj("error")["code"] != "unavailable" {
			t.Errorf("empty %s: %d %v %s", path, r.Status, r.Header, r.Raw)
		}
	}
	release, err := e.srv.Fill(hostext.SlotEventsBatch, func(w http.ResponseWriter, _ *http.Request) error { return noContent(w) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.Fill(hostext.SlotEventsBatch, func(http.ResponseWriter, *http.Request) error { return nil }); err == nil {
		t.Error("a filled slot was filled twice")
	}
	if r := e.do(http.MethodPost, "/v1/events/batch", k, "{}"); r.Status != http.StatusNoContent {
		t.Errorf("filled slot: %d %s", r.Status, r.Raw)
	}
	release()
	release() // twice is harmless
	if r := e.do(http.MethodPost, "/v1/events/batch", k, "{}"); r.Status != http.StatusServiceUnavailable {
		t.Errorf("released slot: %d %s", r.Status, r.Raw)
	}
	if _, err := e.srv.Fill("no.such.slot", nil); err == nil {
		t.Error("an undeclared slot was filled")
	}
}
