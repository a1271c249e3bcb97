package apiserver

import "github.com/llmcost/llmcost/internal/reports"

// reports is the reports layer over the server's store, clock and
// catalogue. It is made per call, as cheap as a struct, so a test that
// moves Deps.Now after New reads with the moved clock.
func (s *Server) reports() *reports.Reports {
	return &reports.Reports{DB: s.DB, Now: s.Now, Catalogue: s.Catalogue}
}
