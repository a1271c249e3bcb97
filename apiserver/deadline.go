package apiserver

import (
	"context"
	"net/http"
)

// deadline bounds each request's context by RequestTimeout, so a handler
// waiting for the database (a pool with every connection busy, a lock, a
// slow statement) gives up while its answer can still be written: the
// store reports the cancelled wait as unavailable, which is a 503 with
// Retry-After the client retries, instead of a connection the server's
// write timeout cuts with no answer. Without RequestTimeout the request's
// own context (its client) is the only bound.
func (s *Server) deadline(next http.Handler) http.Handler {
	if s.RequestTimeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
