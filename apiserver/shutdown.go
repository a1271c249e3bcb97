package apiserver

import (
	"net/http"
	"sync/atomic"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
)

// stopping is set once shutdown begins; from then on every route answers
// 503 with Retry-After, never 404: clients and OTLP exporters drop a batch
// answered 404 for good and retry a 503, on this instance's successor or
// its neighbour behind the load balancer.
type stopping struct{ on atomic.Bool }

// BeginShutdown makes every new request answer 503 with Retry-After until
// the listener closes. Requests already in a handler finish. The costapi
// extension calls it from NotReady, before the pipelines stop.
func (s *Server) BeginShutdown() { s.stop.on.Store(true) }

// ShuttingDown reports whether BeginShutdown was called.
func (s *Server) ShuttingDown() bool { return s.stop.on.Load() }

// gate answers 503 once shutdown began. Connection: close makes a client
// holding a keep-alive connection open a new one, to an instance that is up.
func (s *Server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.stop.on.Load() {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		respond.Error(w, apierr.Unavailablef(nil, "the server is shutting down").
			WithHint("retry after the Retry-After delay; another instance or the restarted one will answer"))
	})
}
