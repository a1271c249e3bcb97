package dashboard

import (
	"slices"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/dashboard/web"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// chargebackData is the chargeback page's record: the project's declared
// tag keys, the picked one, and the window's spend by its values.
type chargebackData struct {
	Tags  wire.TagList
	Key   string
	Rows  []chargebackRow
	Total wire.Money
	Chart string
}

// chargebackRow is one value of the picked key, with the filter that
// narrows the other pages to it.
type chargebackRow struct {
	wire.DimensionRow
	Share  *float64
	Filter string
}

// chargebackPage is /chargeback: spend by the values of one declared tag
// key (?key=, the first key by default), each linking to the overview
// narrowed to that value.
func (d *Dashboard) chargebackPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	var data chargebackData
	var err error
	if data.Tags, err = pd.api.tags(pd.pg.ProjectID); err != nil || len(data.Tags.Keys) == 0 {
		return "chargeback", data, err
	}
	data.Key = data.Tags.Keys[0].Key
	if k := pd.r.FormValue("key"); slices.ContainsFunc(data.Tags.Keys, func(t wire.TagKey) bool { return t.Key == k }) {
		data.Key = k
	}
	rows, err := pd.api.byDimension("tag."+data.Key, pd.report(0))
	if err != nil {
		return "", nil, err
	}
	bars := make([]svgchart.Point, 0, len(rows))
	for _, r := range rows {
		data.Total += r.TotalCost
		bars = append(bars, svgchart.Point{Label: r.Key, Value: r.TotalCost.USD(), Title: web.USD(r.TotalCost)})
	}
	for _, r := range rows {
		row := chargebackRow{DimensionRow: r, Filter: data.Key + "=" + r.Key}
		if data.Total > 0 {
			// Display only: the share of two exact amounts.
			share := float64(r.TotalCost) / float64(data.Total) * 100
			row.Share = &share
		}
		data.Rows = append(data.Rows, row)
	}
	data.Chart = svgchart.Bars("Spend by "+data.Key, bars, svgchart.Size{W: 1100, H: float64(max(len(bars), 1)) * 26})
	return "chargeback", data, nil
}
