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
	"models":        "/v1/analytics/models",
	"agents":        "/v1/analytics/agents",
	"timeseries":    "/v1/analytics/timeseries",
	"workflows":     "/v1/analytics/workflows",
	"outcomes":      "/v1/analytics/workflows/outcomes",
	"steps":         "/v1/analytics/workflows/steps",
	"repeated-work": "/v1/analytics/workflows/repeated-work",
	"traces":        "/v1/analytics/traces",
	// chargeback is by/tag.<key> of the page's ?key= (csvRoute).
	"chargeback": "/v1/analytics/by/{dimension}",
}

// csvRoute is the API route of a download, its variables and whether it
// takes the page's tag filter: every report does (the spend and run
// reports) but the chargeback, by/tag.<key> of the page's tag key (an
// undeclared one is the API's 422), which takes none.
func csvRoute(name string, r *http.Request) (route string, vars map[string]string, tagged, ok bool) {
	route, ok = csvReports[name]
	if ok && name == "chargeback" {
		return route, map[string]string{"dimension": "tag." + r.FormValue("key")}, false, true
	}
	return route, nil, ok, ok
}

// reportCSV reads a report's CSV for the picked project and range.
func (c client) reportCSV(route string, vars map[string]string, q url.Values) ([]byte, error) {
	q.Set("format", "csv")
	var out []byte
	err := c.api.Call(c.from, c.as, Call{Method: http.MethodGet, Route: route, Vars: vars, Query: q}, &out)
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
	route, vars, tagged, known := csvRoute(name, r)
	var err error = apierr.Newf(apierr.NotFound, "no report %q to download", name)
	var body []byte
	if known {
		if err = pd.project(); err == nil {
			q := pd.report(0)
			if tagged {
				q = pd.tagged(0)
			}
			body, err = pd.api.reportCSV(route, vars, q.Values())
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
