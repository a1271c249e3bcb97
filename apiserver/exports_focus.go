package apiserver

import (
	"maps"
	"net/http"
	"time"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/focus"
)

// focusMaxSpan bounds a FOCUS export's range: the rows are summed from
// the calls at once, so a range must fit a request's deadline; a year is
// what a finance team loads at a time (a month is the usual).
const focusMaxSpan = 366 * 24 * time.Hour

// exportFocus is GET /v1/exports/focus: the project's cost and usage in
// [from, to) as a FOCUS 1.2 CSV, one row per UTC day, model (with its
// provider), billing type and agent (docs/exports.md).
func (s *Server) exportFocus(w http.ResponseWriter, r *http.Request) error {
	if f := r.URL.Query().Get("format"); f != "" && f != "csv" {
		return apierr.Field("format", "must be csv: FOCUS is a CSV dataset")
	}
	from, to, err := s.exportRange(r, focusMaxSpan)
	if err != nil {
		return err
	}
	projectID := callerOf(r).ProjectID
	project, err := s.DB.ProjectByID(r.Context(), projectID)
	if err != nil {
		return err
	}
	daily, err := s.DB.DailyUsage(r.Context(), projectID, from, to)
	if err != nil {
		return err
	}
	cat := s.Catalogue.Load()
	usage := make([]focus.Usage, len(daily))
	for i, d := range daily {
		provider := ""
		if e, ok := cat.Lookup(d.Model); ok {
			provider = e.Provider
		}
		// The declared tags are the user's own: FOCUS keeps the llmcost/
		// prefix for the provider's (the agent), and the key rule keeps
		// them from colliding.
		tags := map[string]string{focus.TagAgent: d.AgentName}
		maps.Copy(tags, d.Tags)
		usage[i] = focus.Usage{Day: d.Day, Provider: provider, Model: d.Model, Billing: d.Billing, Tags: tags,
			Calls: d.Calls, Tokens: d.Tokens, CostNano: d.CostNano, ListNano: d.ListNano}
	}
	rows := focus.Build(focus.Account{ID: projectID, Name: project.Name}, usage)
	h := w.Header()
	h.Set("Content-Type", respond.CSVContentType)
	h.Set("Content-Disposition", `attachment; filename="focus-`+from.Format("20060102")+"-"+to.Format("20060102")+`.csv"`)
	w.WriteHeader(http.StatusOK)
	_ = focus.Write(w, rows) // a write error is the client gone: nothing to answer
	return nil
}
