package apiserver

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
)

// exportIDs reads a CSV export's event_id and cursor columns.
func exportIDs(t *testing.T, body io.Reader) (ids, cursors []string) {
	t.Helper()
	header, rows := readCSV(t, body)
	return column(t, header, rows, "event_id"), column(t, header, rows, "cursor")
}

func TestExportCallsPagesAndResumes(t *testing.T) {
	e := newEnv(t)
	u := e.register("export")
	start := e.clock.Now().Add(-48 * time.Hour).Truncate(time.Hour)
	const n = 2*exportPageSize + 1234
	e.seedMany(u.ProjectID, start, n)
	base := "/v1/exports/calls?from=" + url.QueryEscape(start.Format(time.RFC3339))

	rec := e.raw(base, u.Key, nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()[:min(200, rec.Body.Len())])
	}
	ids, cursors := exportIDs(t, rec.Body)
	if len(ids) != n {
		t.Fatalf("%d calls exported, want %d", len(ids), n)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%s exported twice", id)
		}
		seen[id] = true
	}

	// Resuming after any row, a page boundary or not, yields exactly the
	// rows after it: no duplicate, no gap.
	for _, k := range []int{1, exportPageSize, exportPageSize + 777, n - 1} {
		rest, _ := exportIDs(t, e.raw(base+"&cursor="+url.QueryEscape(cursors[k-1]), u.Key, nil).Body)
		if len(rest) != n-k || (len(rest) > 0 && (rest[0] != ids[k] || rest[len(rest)-1] != ids[n-1])) {
			t.Fatalf("resumed after row %d: %d rows, want %d", k, len(rest), n-k)
		}
		for i, id := range rest {
			if id != ids[k+i] {
				t.Fatalf("resumed after row %d: row %d is %s, want %s", k, i, id, ids[k+i])
			}
		}
	}

	// NDJSON, compressed in transit.
	rec = e.raw(base+"&format=ndjson", u.Key, map[string]string{"Accept-Encoding": "gzip"})
	if rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Content-Type") != ndjsonContentType {
		t.Fatalf("ndjson headers %v", rec.Header())
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var lines int
	var total int64
	for sc.Scan() {
		var c wire.ExportCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		if c.EventID != ids[lines] || c.Cursor != cursors[lines] {
			t.Fatalf("line %d: %s %s, CSV had %s %s", lines, c.EventID, c.Cursor, ids[lines], cursors[lines])
		}
		total += int64(c.Cost)
		lines++
	}
	if lines != n || total != int64(n)*int64(n+1)/2 {
		t.Errorf("ndjson: %d lines costing %d nano-USD", lines, total)
	}

	// A .gz file, and a range that ends early.
	to := start.Add(100 * time.Second)
	rec = e.raw(base+"&gzip=true&to="+url.QueryEscape(to.Format(time.RFC3339)), u.Key, nil)
	if rec.Header().Get("Content-Type") != "application/gzip" || !strings.HasSuffix(rec.Header().Get("Content-Disposition"), `.csv.gz"`) {
		t.Fatalf("gzip file headers %v", rec.Header())
	}
	zr, err = gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := exportIDs(t, zr); len(got) != 100 {
		t.Errorf("%d calls in the first 100 s, want 100", len(got))
	}

	// Money is the exact decimal JSON writes; text that a spreadsheet
	// would run is defused.
	header, rows := readCSV(t, e.raw(base+"&to="+url.QueryEscape(start.Add(time.Second).Format(time.RFC3339)), u.Key, nil).Body)
	if got := column(t, header, rows, "cost")[0]; got != "0.000000001" {
		t.Errorf("cost cell %q", got)
	}
	if got := column(t, header, rows, "metadata")[0]; got != `{"note":"=cmd"}` {
		t.Errorf("metadata cell %q", got)
	}
}

func TestExportCallsRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	u := e.register("badexport")
	for path, field := range map[string]string{
		"/v1/exports/calls":                                           "from",
		"/v1/exports/calls?from=yesterday":                            "from",
		"/v1/exports/calls?from=2026-01-02&to=2026-01-01":             "to",
		"/v1/exports/calls?from=2026-01-01&format=xlsx":               "format",
		"/v1/exports/calls?from=2026-01-01&cursor=abc":                "cursor",
		"/v1/exports/calls?from=2026-01-01&gzip=yes":                  "gzip",
		"/v1/exports/focus?from=2026-01-01&to=2026-01-02&format=json": "format",
		"/v1/exports/focus?from=2024-01-01&to=2026-01-01":             "to",
	} {
		r := e.must(e.do("GET", path, u.Key, nil), 422)
		if msg, _ := r.obj("error")["message"].(string); !strings.HasPrefix(msg, field+": ") {
			t.Errorf("%s: message %q, want it to name %s", path, msg, field)
		}
	}
}
