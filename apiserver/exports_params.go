package apiserver

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
)

// exportRange is the [from, to) of an export: from is required, to
// defaults to now; each is RFC 3339 (a time without a zone is UTC) or a
// date (its midnight UTC), so from=2026-11-01&to=2026-12-01 is November.
func (s *Server) exportRange(r *http.Request, maxSpan time.Duration) (time.Time, time.Time, error) {
	q := r.URL.Query()
	if q.Get("from") == "" {
		return time.Time{}, time.Time{}, apierr.Field("from", "is required: an RFC 3339 time or a date (YYYY-MM-DD)")
	}
	from, err := parseExportTime("from", q.Get("from"))
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	to := s.Now().UTC()
	if q.Get("to") != "" {
		if to, err = parseExportTime("to", q.Get("to")); err != nil {
			return time.Time{}, time.Time{}, err
		}
	}
	if !to.After(from) {
		return time.Time{}, time.Time{}, apierr.Field("to", "must be after from")
	}
	if maxSpan > 0 && to.Sub(from) > maxSpan {
		return time.Time{}, time.Time{}, apierr.Field("to", "must be at most "+strconv.Itoa(int(maxSpan/(24*time.Hour)))+" days after from")
	}
	return from, to, nil
}

var instantLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"}

// parseExportTime reads an RFC 3339 time or a date, in UTC.
func parseExportTime(field, v string) (time.Time, error) {
	for _, layout := range instantLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, apierr.Field(field, "must be an RFC 3339 time (2026-11-01T00:00:00Z) or a date (2026-11-01)")
}

// cursorPrefix versions the cursor's layout, so a later layout can still
// read (or clearly refuse) the cursors clients kept.
const cursorPrefix = "c1."

// exportCursor is the opaque cursor of a call: its (timestamp, event_id)
// key in the export's order, microseconds as PostgreSQL stores them.
func exportCursor(t time.Time, eventID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(t.UnixMicro(), 10) + "." + eventID))
}

// parseCursor reads a cursor exportCursor wrote.
func parseCursor(c string) (time.Time, string, error) {
	bad := apierr.Field("cursor", "must be a cursor of a row of this export, as written")
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", bad
	}
	rest, found := strings.CutPrefix(string(raw), cursorPrefix)
	if !found {
		return time.Time{}, "", bad
	}
	micros, id, found := strings.Cut(rest, ".")
	n, err := strconv.ParseInt(micros, 10, 64)
	if !found || err != nil || id == "" {
		return time.Time{}, "", bad
	}
	return time.UnixMicro(n).UTC(), id, nil
}

// exportGzip reports how an export is compressed: gzip=true makes the
// body a .gz file (Content-Type application/gzip, for a browser's
// download); Accept-Encoding: gzip compresses it in transit
// (Content-Encoding: gzip), which HTTP clients undo by themselves.
func exportGzip(r *http.Request) (file, transit bool, err error) {
	switch r.URL.Query().Get("gzip") {
	case "true":
		return true, false, nil
	case "", "false":
	default:
		return false, false, apierr.Field("gzip", "must be true or false")
	}
	for _, h := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(h, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
				return false, true, nil
			}
		}
	}
	return false, false, nil
}
