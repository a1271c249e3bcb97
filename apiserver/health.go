package apiserver

import (
	"net/http"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/backlog"
)

// mergerLags is the gate's latest snapshot of the deployment, every merger
// present (nil without a gate).
func mergerLags(g *backlog.Gate) map[string]wire.MergerLag {
	if g == nil {
		return nil
	}
	snap := g.Snapshot()
	out := make(map[string]wire.MergerLag, len(backlog.Mergers))
	for _, m := range backlog.Mergers {
		l := snap.Lags[m]
		out[string(m)] = wire.MergerLag{Backlog: l.Backlog, LagSeconds: l.Seconds}
	}
	return out
}

// health answers ok only when the database answers; the mirror has none
// to ask.
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	body := wire.Health{Status: "ok", Version: s.Version, Timestamp: ts(s.Now())}
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
