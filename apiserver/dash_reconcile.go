package apiserver

import "net/url"

// reconcilePageData is the reconciliation page: the report of the window.
type reconcilePageData struct {
	Report ReconReport
	// Gaps are the rows with a cause, the page's table.
	Gaps []ReconRow
	// Range is the report's window (7d, 30d or 90d): the page's range
	// when it is one of them, else 30 days.
	Range string
}

// reconcilePage is GET /reconciliation: the provider's bill beside
// llmcost's figures, the gaps first. Connecting a provider is done through
// the API (docs/reconciliation.md).
func (s *Server) reconcilePage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	data := reconcilePageData{Range: d.pg.Range}
	if _, ok := reconRanges[data.Range]; !ok {
		data.Range = "30d"
	}
	q := url.Values{"project_id": {d.pg.ProjectID}, "range": {data.Range}}
	err := d.reads(pageRead{"/v1/reconciliation", nil, q, &data.Report})
	for _, r := range data.Report.Rows {
		if r.Cause != nil {
			data.Gaps = append(data.Gaps, r)
		}
	}
	return "reconciliation", data, err
}
