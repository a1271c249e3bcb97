package apiserver

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// appDur parses the app duration of a Server-Timing header, in ms.
func appDur(t *testing.T, h string) float64 {
	t.Helper()
	v, ok := strings.CutPrefix(h, "app;dur=")
	if !ok {
		t.Fatalf("Server-Timing %q: want app;dur=<ms>", h)
	}
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("Server-Timing %q: %v", h, err)
	}
	return ms
}

func TestServerTimingIsTheTimeUntilTheStatusLine(t *testing.T) {
	for _, c := range []struct {
		name   string
		h      http.HandlerFunc
		status int
		after  time.Duration // spent after the status line
	}{
		{"status written", func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(20 * time.Millisecond)
			w.WriteHeader(http.StatusNotFound)
		}, http.StatusNotFound, 0},
		{"body without a status", func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(20 * time.Millisecond)
			_, _ = w.Write([]byte("{}"))
		}, http.StatusOK, 0},
		{"flushed through a ResponseController", func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(20 * time.Millisecond)
			_, _ = w.Write([]byte("a,b\n"))
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Errorf("flush: %v", err)
			}
			time.Sleep(50 * time.Millisecond) // after the status line: not counted
			_, _ = w.Write([]byte("1,2\n"))
		}, http.StatusOK, 50 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			t0 := time.Now()
			serverTiming(c.h).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			total := float64((time.Since(t0) - c.after).Microseconds()) / 1000
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d", rec.Code, c.status)
			}
			ms := appDur(t, rec.Header().Get("Server-Timing"))
			if ms < 20 || ms > total {
				t.Errorf("app;dur=%v ms, want the 20 ms or more before the status line, at most %v ms (not what came after it)", ms, total)
			}
		})
	}
}
