package apiserver

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
)

// route is one line of the route table.
type route struct {
	Method  string
	Path    string // a gorilla/mux template
	Guard   guard
	Handler respond.Func
}

func get(path string, g guard, h respond.Func) route   { return route{http.MethodGet, path, g, h} }
func post(path string, g guard, h respond.Func) route  { return route{http.MethodPost, path, g, h} }
func patch(path string, g guard, h respond.Func) route { return route{http.MethodPatch, path, g, h} }
func put(path string, g guard, h respond.Func) route   { return route{http.MethodPut, path, g, h} }
func del(path string, g guard, h respond.Func) route   { return route{http.MethodDelete, path, g, h} }

// read adapts a typed read handler: its value is the 200 JSON answer.
func read[T any](h func(*http.Request) (T, error)) respond.Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		v, err := h(r)
		if err != nil {
			return err
		}
		return ok(w, http.StatusOK, v)
	}
}

// methods are the methods a 405's Allow header may list.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// routeMethods are the methods a route answers: HEAD wherever GET, as
// HTTP clients and monitors expect (net/http drops the body of a HEAD).
func routeMethods(m string) []string {
	if m == http.MethodGet {
		return []string{http.MethodGet, http.MethodHead}
	}
	return []string{m}
}

// mount registers table on the router; gorilla/mux tells a path that
// exists under another method (405) from one that does not (404). Routes
// not served (the origin's, on a mirror) answer 404 and are left out of
// Allow, so the mirror's answers do not depend on its neighbours' paths.
func (s *Server) mount(table []route, served bool) {
	for _, rt := range table {
		if served {
			s.router.Handle(rt.Path, s.adapt(rt)).Methods(routeMethods(rt.Method)...)
			continue
		}
		off := s.router.Handle(rt.Path, respond.Handler(s.Logger, notOnMirror)).Methods(routeMethods(rt.Method)...)
		s.offMirror[off] = true
	}
}

// adapt runs the route's guard, then its handler with what the guard
// established about the caller; respond.Handler answers any error.
func (s *Server) adapt(rt route) http.Handler {
	return respond.Handler(s.Logger, func(w http.ResponseWriter, r *http.Request) error {
		c, err := rt.Guard.check(s, r)
		if err != nil {
			return err
		}
		return rt.Handler(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
	})
}

func notFound(_ http.ResponseWriter, r *http.Request) error {
	return apierr.Newf(apierr.NotFound, "no route %s %s", r.Method, r.URL.Path).
		WithHint("docs/api.md lists every endpoint")
}

func notOnMirror(_ http.ResponseWriter, r *http.Request) error {
	return apierr.Newf(apierr.NotFound, "no route %s %s on this mirror", r.Method, r.URL.Path).
		WithHint("a mirror serves only health, the public pricing reads and the estimator; send this to the origin")
}

// methodNotAllowed answers a known path called with another method.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	methods := s.allowed(r)
	if len(methods) == 0 { // known only to routes this server does not serve
		return notOnMirror(w, r)
	}
	allow := strings.Join(methods, ", ")
	w.Header().Set("Allow", allow)
	return apierr.Newf(apierr.MethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path).
		WithHint("allowed: " + allow)
}

// allowed lists the methods the route table serves on r's path.
func (s *Server) allowed(r *http.Request) []string {
	var out []string
	for _, m := range methods {
		probe := r.Clone(r.Context())
		probe.Method = m
		var match mux.RouteMatch
		if s.router.Match(probe, &match) && match.MatchErr == nil && !s.offMirror[match.Route] {
			out = append(out, m)
		}
	}
	return out
}
