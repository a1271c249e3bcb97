package apiserver

import (
	"net/http"
	"strconv"
	"time"
)

// serverTiming sets the Server-Timing header (W3C Server Timing) of every
// answer to the time llmcost spent on it until its status line: `app;dur=`
// in milliseconds. A client that measures a request end to end can then
// tell llmcost's own time from the time its request and answer spent
// waiting for a core or on the network; a browser's developer tools show
// it beside each request. Nothing of the request is revealed: only a
// duration.
func serverTiming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&timedWriter{ResponseWriter: w, start: time.Now()}, r)
	})
}

// timedWriter sets Server-Timing when the status line is written.
type timedWriter struct {
	http.ResponseWriter
	start time.Time
	done  bool
}

// WriteHeader sets Server-Timing with the time since the request arrived
// (once: a second WriteHeader is the standard library's to refuse).
func (t *timedWriter) WriteHeader(code int) {
	if !t.done && code >= 200 {
		t.done = true
		ms := float64(time.Since(t.start).Microseconds()) / 1000
		t.Header().Set("Server-Timing", "app;dur="+strconv.FormatFloat(ms, 'f', 3, 64))
	}
	t.ResponseWriter.WriteHeader(code)
}

// Write writes the status line first when the handler did not.
func (t *timedWriter) Write(b []byte) (int, error) {
	if !t.done {
		t.WriteHeader(http.StatusOK)
	}
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the server's writer (to flush
// a streamed export, or set its deadlines).
func (t *timedWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
