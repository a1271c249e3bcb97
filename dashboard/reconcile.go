package dashboard

import "github.com/llmcost/llmcost/apiserver/wire"

// reconcileData is the reconciliation page: the report of the window.
type reconcileData struct {
	Report wire.ReconReport
	// Gaps are the rows with a cause, the page's table.
	Gaps []wire.ReconRow
	// Range is the report's window: the page's range when the report
	// takes it (7d, 30d, 90d), else 30 days.
	Range string
}

// reconcileRanges are the windows the reconciliation report takes.
var reconcileRanges = map[string]bool{"7d": true, "30d": true, "90d": true}

// reconcilePage is GET /reconciliation: the provider's bill beside
// llmcost's figures, the gaps first. Connecting a provider is done through
// the API (docs/reconciliation.md).
func (d *Dashboard) reconcilePage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	data := reconcileData{Range: pd.pg.Range}
	if !reconcileRanges[data.Range] {
		data.Range = "30d"
	}
	var err error
	data.Report, err = pd.api.reconciliation(pd.pg.ProjectID, data.Range)
	for _, r := range data.Report.Rows {
		if r.Cause != nil {
			data.Gaps = append(data.Gaps, r)
		}
	}
	return "reconciliation", data, err
}
