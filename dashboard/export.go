package dashboard

import (
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
)

// csvReports are the reports a page offers as a CSV download, by the name
// in the download's path: each is the API's own CSV of that report
// (docs/exports.md), read in process, so the download needs what the API
// needs (EXPORT_DATA: a viewer's download is 403).
var csvReports = map[string]string{
	"models":     "/v1/analytics/models",
	"agents":     "/v1/analytics/agents",
	"timeseries": "/v1/analytics/timeseries",
	"workflows":  "/v1/analytics/workflows",
}

// reportCSV reads a report's CSV for the picked project and range.
func (c client) reportCSV(route string, q url.Values) ([]byte, error) {
	q.Set("format", "csv")
	var out []byte
	err := c.api.Call(c.from, c.as, Call{Method: http.MethodGet, Route: route, Query: q}, &out)
	return out, err
}

// downloadCSV is GET /export/{report}.csv: the report of the picked project
// and range as a CSV file, for the download links under a page's tables.
func (d *Dashboard) downloadCSV(w http.ResponseWriter, r *http.Request) error {
	pd, ok := d.open(w, r)
	if !ok {
		return nil
	}
	name := mux.Vars(r)["report"]
	route, known := csvReports[name]
	var err error = apierr.Newf(apierr.NotFound, "no report %q to download", name)
	var body []byte
	if known {
		if err = pd.project(); err == nil {
			q := pd.spend(0)
			if name == "workflows" { // a run report: no tag filter
				q = pd.report(0)
			}
			body, err = pd.api.reportCSV(route, q.Values())
		}
	}
	if err != nil {
		return d.errorPage(w, r, pd.pg, err)
	}
	w.Header().Set("Content-Type", respond.CSVContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+"-"+pd.pg.Range+`.csv"`)
	_, _ = w.Write(body)
	return nil
}
