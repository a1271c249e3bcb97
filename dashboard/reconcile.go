package dashboard

import (
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// reconcileData is the reconciliation page: the report of the window.
type reconcileData struct {
	Report wire.ReconReport
	// Gaps are the rows with a cause, the page's table.
	Gaps []wire.ReconRow
	// Range is the report's window: the page's range when the report
	// takes it (7d, 30d, 90d), else 30 days.
	Range string
	// Chart is the daily comparison: the provider's cost beside
	// llmcost's, one pair of bars per day of the window.
	Chart string
}

// reconcileRanges are the windows the reconciliation report takes.
var reconcileRanges = map[string]bool{"7d": true, "30d": true, "90d": true}

// reconcilePage is GET /reconciliation: the provider's bill beside
// llmcost's figures, the gaps first. Connecting a provider is done on the
// settings page or through the API (docs/reconciliation.md).
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
	data.Chart = svgchart.Columns("Provider's cost and llmcost's cost per day", [2]string{"provider", "llmcost"},
		reconDays(data.Report), web.Dollars, svgchart.Size{W: 1100, H: 240})
	return "reconciliation", data, err
}

// reconDay is one day's totals over every provider and model, summed
// exactly before they are drawn.
type reconDay struct {
	provider, llmcost wire.Money
	// known is whether any row of the day has a provider cost; final
	// whether every row of the day is final.
	known, final bool
}

// reconDays is one pair per day of the report's window, oldest first: the
// provider's cost (left out on a day whose cost the provider's report does
// not give for the connection's scope) and llmcost's, faint while the
// provider has not finalised the day. A day without rows is a pair of
// zeros, so the chart always spans the whole window.
func reconDays(rep wire.ReconReport) []svgchart.Pair {
	days := map[string]*reconDay{}
	for _, r := range rep.Rows {
		d := days[r.Day]
		if d == nil {
			d = &reconDay{final: true}
			days[r.Day] = d
		}
		d.llmcost += r.LLMCostCost
		if r.ProviderCost != nil {
			d.provider += *r.ProviderCost
			d.known = true
		}
		d.final = d.final && r.Final
	}
	var out []svgchart.Pair
	for _, day := range windowDays(rep) {
		p := svgchart.Pair{Label: day, ATitle: web.USD(0), BTitle: web.USD(0)}
		if d := days[day]; d != nil {
			p.A, p.B = d.provider.USD(), d.llmcost.USD()
			p.ATitle, p.BTitle = web.USD(d.provider), web.USD(d.llmcost)
			p.NoA, p.Pending = !d.known, !d.final
		}
		out = append(out, p)
	}
	return out
}

// windowDays are the UTC dates from the report's from (inclusive) to its
// to (exclusive), as the rows name them; none when the bounds do not
// parse.
func windowDays(rep wire.ReconReport) []string {
	from, err1 := time.Parse(time.RFC3339Nano, rep.From)
	to, err2 := time.Parse(time.RFC3339Nano, rep.To)
	if err1 != nil || err2 != nil {
		return nil
	}
	var out []string
	for d := from.UTC(); d.Before(to) && len(out) < 366; d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format(time.DateOnly))
	}
	return out
}
