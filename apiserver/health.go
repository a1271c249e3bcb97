package apiserver

import (
	"net/http"

	"github.com/llmcost/llmcost/internal/backlog"
)

// healthJSON is GET /v1/health.
type healthJSON struct {
	Status    string `json:"status"`
	Version   string `json:"version"`
	Timestamp string `json:"timestamp"`
	// Mergers is how far each asynchronous merger is behind ingest over
	// the deployment (absent on a mirror).
	Mergers map[backlog.Merger]mergerLagJSON `json:"mergers,omitempty"`
}

// mergerLagJSON is one merger's backlog: calls for the rollups, runs for
// the run merger, queued rows for the alert drain; lag_seconds is the age
// of the oldest item waiting (0 when none waits).
type mergerLagJSON struct {
	Backlog    int64   `json:"backlog"`
	LagSeconds float64 `json:"lag_seconds"`
}

// mergerLags is the gate's latest snapshot of the deployment, every merger
// present (nil without a gate).
func mergerLags(g *backlog.Gate) map[backlog.Merger]mergerLagJSON {
	if g == nil {
		return nil
	}
	snap := g.Snapshot()
	out := make(map[backlog.Merger]mergerLagJSON, len(backlog.Mergers))
	for _, m := range backlog.Mergers {
		l := snap.Lags[m]
		out[m] = mergerLagJSON{Backlog: l.Backlog, LagSeconds: l.Seconds}
	}
	return out
}

// health answers ok only when the database answers; the mirror has none
// to ask.
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	body := healthJSON{Status: "ok", Version: s.Version, Timestamp: ts(s.Now())}
	if !s.Mirror {
		body.Mergers = mergerLags(s.Backlog)
		if err := s.DB.Ping(r.Context()); err != nil {
			body.Status = "unavailable"
			w.Header().Set("Retry-After", "5")
			return ok(w, http.StatusServiceUnavailable, body)
		}
	}
	return ok(w, http.StatusOK, body)
}
