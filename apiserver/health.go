package apiserver

import "net/http"

// healthJSON is GET /v1/health.
type healthJSON struct {
	Status    string `json:"status"`
	Version   string `json:"version"`
	Timestamp string `json:"timestamp"`
}

// health answers ok only when the database answers; the mirror has none
// to ask.
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	body := healthJSON{Status: "ok", Version: s.Version, Timestamp: ts(s.Now())}
	if !s.Mirror {
		if err := s.DB.Ping(r.Context()); err != nil {
			body.Status = "unavailable"
			w.Header().Set("Retry-After", "5")
			return ok(w, http.StatusServiceUnavailable, body)
		}
	}
	return ok(w, http.StatusOK, body)
}
