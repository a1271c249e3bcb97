package apiserver

import "net/http"

// headers sets what every answer carries before a handler runs: nosniff,
// so a browser never runs a JSON answer as something else, and
// Cache-Control: no-store, so answers carrying tokens, API keys or a
// user's data are kept by no cache or proxy. A handler whose answer is
// public and cacheable may set its own Cache-Control over it.
func (s *Server) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
