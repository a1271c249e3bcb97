package apiserver

import (
	"mime"
	"net/http"
	"path"
	"reflect"
	"strings"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
)

// Formats of a report's answer: JSON unless the client asks for CSV with
// format=csv or Accept: text/csv.
const (
	formatJSON = "json"
	formatCSV  = "csv"
)

// csvRows names, for each report answer that is an object, the array its
// CSV lists: the report's natural rows. An answer that is itself an array
// lists its items; an object not named here (overview, cache, a summary)
// is one row of its own fields. Nested objects become dotted columns,
// nested arrays a JSON text cell (respond.CSV).
var csvRows = map[reflect.Type]string{
	reflect.TypeFor[wire.FullAnalytics](): "timeseries",
	reflect.TypeFor[wire.AgentDetail]():   "by_model",
	reflect.TypeFor[wire.Compliance]():    "agents",
	reflect.TypeFor[wire.ReconReport]():   "rows",
	reflect.TypeFor[wire.ReconSummary]():  "providers",
	reflect.TypeFor[wire.Distribution]():  "histogram",
	reflect.TypeFor[wire.TraceDetail]():   "spans",
	reflect.TypeFor[wire.Forecast]():      "projection",
	reflect.TypeFor[wire.AnomalyList]():   "anomalies",
}

// reportRead adapts a typed report read: its value is the 200 answer, as
// JSON or, when the client asks for it, as CSV. The format is checked
// before the report is read, so a bad one costs no query.
func reportRead[T any](h func(*http.Request) (T, error)) respond.Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		format, err := reportFormat(r)
		if err != nil {
			return err
		}
		if format == formatCSV {
			if err := requireExport(r); err != nil {
				return err
			}
		}
		v, err := h(r)
		if err != nil {
			return err
		}
		w.Header().Add("Vary", "Accept")
		if format == formatJSON {
			return ok(w, http.StatusOK, v)
		}
		return respond.CSV(w, csvRowsOf(v), csvName(r))
	}
}

// reportFormat is the format a report is asked for: the format parameter
// when sent (json or csv, else 422), else CSV when Accept names text/csv.
func reportFormat(r *http.Request) (string, error) {
	q := r.URL.Query()
	if q.Has("format") {
		switch f := q.Get("format"); f {
		case formatJSON, formatCSV:
			return f, nil
		}
		return "", apierr.Field("format", "must be json or csv")
	}
	if accepts(r, "text/csv") {
		return formatCSV, nil
	}
	return formatJSON, nil
}

// accepts reports whether the Accept header names media type mt (with a
// non-zero quality).
func accepts(r *http.Request, mt string) bool {
	for _, h := range r.Header.Values("Accept") {
		for _, part := range strings.Split(h, ",") {
			t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err == nil && t == mt && params["q"] != "0" {
				return true
			}
		}
	}
	return false
}

// requireExport admits a caller holding EXPORT_DATA in the project the
// guard resolved: an export of a report is an export (members, admins and
// the project's key), even though viewers may read its JSON.
func requireExport(r *http.Request) error {
	p := principalOf(r)
	if p.Kind != access.Session {
		return nil // the project's key, which the guard admitted, may export
	}
	return p.RequireRole(r.Context(), callerOf(r).ProjectID, access.ExportData)
}

// csvRowsOf is what a report's CSV lists (csvRows).
func csvRowsOf(v any) any {
	rv := reflect.ValueOf(v)
	field, ok := csvRows[rv.Type()]
	if !ok {
		return v
	}
	for i := 0; i < rv.NumField(); i++ {
		if name, _ := jsonFieldName(rv.Type().Field(i)); name == field {
			return rv.Field(i).Interface()
		}
	}
	return v
}

func jsonFieldName(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name, name != ""
}

// csvName is the download's file name: the report's last path segment.
func csvName(r *http.Request) string {
	name := strings.Map(func(c rune) rune {
		if c == '"' || c == '\\' || c < ' ' || c > '~' {
			return '_'
		}
		return c
	}, path.Base(r.URL.Path))
	return name + ".csv"
}
