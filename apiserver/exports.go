package apiserver

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// exportPageSize is how many calls an export reads per statement: large
// enough that a statement's cost is spread over many rows, small enough
// that a page (a few MB) is all the memory an export holds.
const exportPageSize = 5000

// exportPageTimeout bounds each page's statement. An export outlives the
// request's deadline (it is bounded by the client instead), but no one
// statement may wait longer than a report's would.
const exportPageTimeout = 25 * time.Second

// exportWriteWindow is how long the server waits for the client to take
// each page, where the connection lets the handler move its write
// deadline; otherwise the server's write timeout bounds the export and the
// client resumes with the cursor.
const exportWriteWindow = 30 * time.Second

const ndjsonContentType = "application/x-ndjson"

// exportCalls is GET /v1/exports/calls: the project's calls in [from, to),
// oldest first, as CSV or NDJSON, streamed a page at a time. Each row
// carries its cursor; a client whose stream broke passes the last complete
// row's cursor and gets exactly the rows after it.
func (s *Server) exportCalls(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	format := "csv"
	switch {
	case q.Has("format"):
		format = q.Get("format")
		if format != "csv" && format != "ndjson" {
			return apierr.Field("format", "must be csv or ndjson")
		}
	case accepts(r, ndjsonContentType):
		format = "ndjson"
	}
	from, to, err := s.exportRange(r, 0)
	if err != nil {
		return err
	}
	page := postgres.CallPage{ProjectID: callerOf(r).ProjectID, From: from, To: to, Limit: exportPageSize}
	if c := q.Get("cursor"); c != "" {
		if page.AfterTS, page.AfterID, err = parseCursor(c); err != nil {
			return err
		}
		page.After = true
	}
	gzFile, gzTransit, err := exportGzip(r)
	if err != nil {
		return err
	}

	// The first page is read before anything is written, so a failure
	// there is still an error answer; later failures can only end the
	// stream, which the client sees as cut and resumes.
	buf, err := s.DB.CallsPage(r.Context(), page, make([]event.Event, 0, exportPageSize))
	if err != nil {
		return err
	}
	name := "calls-" + from.Format("20060102T150405Z") + "-" + to.Format("20060102T150405Z") + "." + format
	h := w.Header()
	h.Add("Vary", "Accept, Accept-Encoding")
	h.Set("Content-Type", respond.CSVContentType)
	if format == "ndjson" {
		h.Set("Content-Type", ndjsonContentType)
	}
	var out io.Writer = w
	if gzFile || gzTransit {
		if gzFile {
			h.Set("Content-Type", "application/gzip")
			name += ".gz"
		} else {
			h.Set("Content-Encoding", "gzip")
		}
		gz := gzip.NewWriter(w)
		defer gz.Close()
		out = gz
	}
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil // the headers are the answer: no page past the first is read
	}

	write, flush := callWriter(out, format)
	rc := http.NewResponseController(w)
	for {
		_ = rc.SetWriteDeadline(time.Now().Add(exportWriteWindow))
		for i := range buf {
			ev := &buf[i]
			if err := write(wire.ExportCall{Event: newEventJSON(ev), Cursor: exportCursor(ev.Timestamp, ev.EventID)}); err != nil {
				return nil // the client went away
			}
		}
		if err := flushExport(flush, out, rc); err != nil || len(buf) < page.Limit {
			return nil
		}
		last := buf[len(buf)-1]
		page.After, page.AfterTS, page.AfterID = true, last.Timestamp, last.EventID
		if buf, err = s.nextCallsPage(r, page, buf); err != nil {
			return nil
		}
	}
}

// nextCallsPage reads a page after the first, detached from the request's
// deadline (which bounds answers, not a stream) but not from its client.
func (s *Server) nextCallsPage(r *http.Request, page postgres.CallPage, buf []event.Event) ([]event.Event, error) {
	if errors.Is(r.Context().Err(), context.Canceled) {
		return nil, r.Context().Err()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), exportPageTimeout)
	defer cancel()
	buf, err := s.DB.CallsPage(ctx, page, buf)
	if err != nil {
		s.Logger.Warn("calls export ended early", zap.String("project_id", page.ProjectID), zap.Error(err))
	}
	return buf, err
}

// callWriter writes export rows in format to out, and flushes its buffer.
func callWriter(out io.Writer, format string) (write func(wire.ExportCall) error, flush func() error) {
	if format == "ndjson" {
		enc := json.NewEncoder(out)
		return func(c wire.ExportCall) error { return enc.Encode(c) }, func() error { return nil }
	}
	cw := respond.NewCSVWriter(out, respond.Columns(reflect.TypeFor[wire.ExportCall]()))
	var row wire.ExportCall
	v := reflect.ValueOf(&row)
	return func(c wire.ExportCall) error { row = c; return cw.Write(v) }, cw.Flush
}

// flushExport sends what a page wrote: the row writer's buffer, gzip's,
// then the connection's, so the client holds every complete page.
func flushExport(flush func() error, out io.Writer, rc *http.ResponseController) error {
	if err := flush(); err != nil {
		return err
	}
	if f, ok := out.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
