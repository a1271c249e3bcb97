package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/dashboard"
	"github.com/llmcost/llmcost/internal/access"
)

// inProcess is the API as the dashboard reaches it: a route of the table
// run in this process for a principal, through its own guard and handler,
// with no HTTP round trip. So the dashboard reads exactly what the API
// answers that principal and nothing the API would refuse.
type inProcess struct{ s *Server }

// Call runs c as as (nil: no credentials) and decodes the JSON answer
// into out; into a *[]byte it copies the answer as written.
func (a inProcess) Call(from *http.Request, as *access.Principal, c dashboard.Call, out any) error {
	if as == nil {
		as = access.NewPrincipal(access.None, a.s.DB)
	}
	return a.s.callRoute(from, as, c.Method, c.Route, c.Vars, c.Query, c.Body, out)
}

// callRoute runs the route "method tpl" of the route table in process for
// principal p: its guard, then its handler, and decodes the JSON answer
// into out (a *[]byte takes the body as written). The request keeps the browser's address and user agent (the
// register route records them with consent). An error is the route's own
// domain error, as an HTTP client would see it.
func (s *Server) callRoute(from *http.Request, p *access.Principal, method, tpl string, vars map[string]string,
	query url.Values, body, out any) error {
	rt, ok := s.route(method, tpl)
	if !ok {
		return fmt.Errorf("dashboard: no route %s %s in the route table", method, tpl)
	}
	rd := io.Reader(http.NoBody)
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	path := fillPath(tpl, vars)
	req, err := http.NewRequestWithContext(access.NewContext(from.Context(), p), method, path, rd)
	if err != nil {
		return err
	}
	req.URL.RawQuery = query.Encode()
	req.RemoteAddr = from.RemoteAddr
	req.Header.Set("User-Agent", from.UserAgent())
	req.Header.Set("Content-Type", "application/json")
	req = mux.SetURLVars(req, vars)
	c, err := rt.Guard.check(s, req)
	if err != nil {
		return err
	}
	rec := &recorder{header: http.Header{}}
	if err := rt.Handler(rec, req.WithContext(context.WithValue(req.Context(), callerKey{}, c))); err != nil {
		return err
	}
	if out == nil || rec.body.Len() == 0 {
		return nil
	}
	if raw, ok := out.(*[]byte); ok { // an answer that is not JSON (a report's CSV), as written
		*raw = append((*raw)[:0], rec.body.Bytes()...)
		return nil
	}
	return json.Unmarshal(rec.body.Bytes(), out)
}

// route finds "method tpl" in the route table.
func (s *Server) route(method, tpl string) (route, bool) {
	for _, rt := range s.table {
		if rt.Method == method && rt.Path == tpl {
			return rt, true
		}
	}
	return route{}, false
}

// recorder keeps a route's answer for callRoute.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

// fillPath puts vars into a route template's {name} and {name:pattern}
// variables, escaped, for the in-process request's URL (the handlers read
// the variables themselves from mux.Vars).
func fillPath(tpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		j := strings.IndexByte(tpl, '}')
		if i < 0 || j < i {
			b.WriteString(tpl)
			return b.String()
		}
		name, _, _ := strings.Cut(tpl[i+1:j], ":")
		b.WriteString(tpl[:i] + url.PathEscape(vars[name]))
		tpl = tpl[j+1:]
	}
}
