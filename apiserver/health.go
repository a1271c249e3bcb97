package apiserver

import "net/http"

// health answers ok only when the database answers.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	body := map[string]any{"status": "ok", "version": s.Version, "timestamp": ts(s.Now())}
	if s.Mirror { // the mirror has no database to ask
		ok(w, http.StatusOK, body)
		return
	}
	if err := s.DB.Ping(r.Context()); err != nil {
		body["status"] = "unavailable"
		w.Header().Set("Retry-After", "5")
		ok(w, http.StatusServiceUnavailable, body)
		return
	}
	ok(w, http.StatusOK, body)
}
