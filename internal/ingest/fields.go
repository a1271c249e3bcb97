package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

const (
	maxTraceID   = 64
	maxHash      = 128
	maxName      = 256
	maxEventID   = 255
	maxErrorText = 4096
	// maxLatencyMS bounds latency_ms at 10^9 ms (11.6 days; a Batch API
	// call waits at most 24 hours), so that a project's latency sums stay
	// within pricing.MaxProjectTotal for any realistic number of calls.
	maxLatencyMS = 1_000_000_000
	// maxTotalTokens bounds a client-sent total_tokens: input and output
	// at their bound together.
	maxTotalTokens = 2 * pricing.MaxCallTokens
)

// objectFields splits a JSON object into its members, into fields (an
// empty map), matching keys exactly (encoding/json alone would fill
// event_id from EVENT_ID). msg is valid JSON: an element of a batch that
// was validated whole.
func objectFields(msg json.RawMessage, fields map[string]json.RawMessage) *Rejection {
	if len(msg) == 0 || msg[0] != '{' {
		return &Rejection{Field: "", Reason: "must be a JSON object"}
	}
	if scanInto(msg, fields) {
		return nil
	}
	clear(fields)
	if err := json.Unmarshal(msg, &fields); err != nil {
		return &Rejection{Field: "", Reason: "malformed object: " + err.Error()}
	}
	return nil
}

// memberMaps recycles the member maps of events and their metadata; a map
// that grew past maxPooledMembers is left to the collector.
var memberMaps = sync.Pool{New: func() any { return make(map[string]json.RawMessage, 24) }}

const maxPooledMembers = 64

func getMembers() map[string]json.RawMessage { return memberMaps.Get().(map[string]json.RawMessage) }

func putMembers(m map[string]json.RawMessage) {
	if len(m) <= maxPooledMembers {
		clear(m) // the values share the request body's bytes
		memberMaps.Put(m)
	}
}

// fieldReader reads typed members and keeps the first rejection.
type fieldReader struct {
	fields map[string]json.RawMessage
	rej    *Rejection
}

func (f *fieldReader) fail(field, reason string) {
	if f.rej == nil {
		f.rej = &Rejection{Field: field, Reason: reason}
	}
}

// get returns a member that is present and not null.
func (f *fieldReader) get(name string, required bool) (json.RawMessage, bool) {
	v, ok := f.fields[name]
	if !ok || string(v) == "null" {
		if required {
			f.fail(name, "is required")
		}
		return nil, false
	}
	return v, true
}

func (f *fieldReader) str(name string, required bool, maxLen int) string {
	v, ok := f.get(name, required)
	if !ok {
		return ""
	}
	s, plain := plainString(v)
	if !plain {
		if v[0] != '"' || json.Unmarshal(v, &s) != nil {
			f.fail(name, "must be a string")
			return ""
		}
		if reason := CheckJSONText(v, 0); reason != "" {
			f.fail(name, reason)
			return ""
		}
	}
	switch {
	case required && strings.TrimSpace(s) == "":
		f.fail(name, "must not be empty")
	case len(s) > maxLen:
		f.fail(name, fmt.Sprintf("must be at most %d bytes", maxLen))
	case strings.ContainsRune(s, 0):
		f.fail(name, "must not contain NUL characters")
	}
	return s
}

func (f *fieldReader) boolean(name string, required, def bool) bool {
	v, ok := f.get(name, required)
	if !ok {
		return def
	}
	switch string(v) {
	case "true":
		return true
	case "false":
		return false
	}
	f.fail(name, "must be a boolean")
	return def
}

// integer reads an integer from 0 to limit; 1200.0 is accepted, 1.5 is
// not. A value above limit is refused with the bound in the reason (it is
// never clamped).
func (f *fieldReader) integer(name string, required bool, limit int64) (int64, bool) {
	v, ok := f.get(name, required)
	if !ok {
		return 0, false
	}
	if !isNumber(v) {
		f.fail(name, "must be an integer")
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		fl, ferr := strconv.ParseFloat(string(v), 64)
		switch {
		case ferr != nil && !errors.Is(ferr, strconv.ErrRange), fl != math.Trunc(fl):
			f.fail(name, "must be an integer")
			return 0, false
		case fl < 0:
			f.fail(name, "must be ≥ 0")
			return 0, false
		case fl > float64(limit):
			f.fail(name, boundReason(limit))
			return 0, false
		}
		n = int64(fl)
	}
	if n < 0 {
		f.fail(name, "must be ≥ 0")
		return 0, false
	}
	if n > limit {
		f.fail(name, boundReason(limit))
		return 0, false
	}
	return n, true
}

// boundReason is the rejection of an integer above its bound (docs/api.md,
// "Bounds"): the bound is named so the client can tell a bug from a limit.
func boundReason(limit int64) string {
	return fmt.Sprintf("must be at most %d per call (llmcost's bound, far above any real call; see docs/api.md, Bounds)", limit)
}

// number returns the literal text of a JSON number member.
func (f *fieldReader) number(name string) (string, bool) {
	v, ok := f.get(name, false)
	if !ok {
		return "", false
	}
	if !isNumber(v) {
		f.fail(name, "must be a number")
		return "", false
	}
	return string(v), true
}

func (f *fieldReader) timestamp(name string, now time.Time) time.Time {
	s := f.str(name, true, 64)
	if f.rej != nil {
		return time.Time{}
	}
	t, err := parseTime(s)
	if err != nil {
		f.fail(name, "must be an ISO 8601 timestamp such as 2026-01-02T15:04:05Z")
		return time.Time{}
	}
	if t.After(now.Add(24 * time.Hour)) {
		f.fail(name, "must be at most 24 hours in the future")
	}
	return t.UTC()
}

// unknown rejects members outside known, so a typo is not silently dropped;
// a near miss ("input_token") names the field it probably meant.
func (f *fieldReader) unknown(known map[string]bool) {
	var extra []string
	for k := range f.fields {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return
	}
	sort.Strings(extra)
	reason := "is not a known field"
	if near := closest(extra[0], known); near != "" {
		reason += " (did you mean " + near + "?)"
	}
	f.fail(extra[0], reason)
}

// closest is the known name within two edits of name (case ignored), or "".
func closest(name string, known map[string]bool) string {
	best, bestD := "", 3
	for k := range known {
		if d := pricing.EditDistance(strings.ToLower(name), k); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	return best
}

func isNumber(v json.RawMessage) bool {
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02"}

func parseTime(s string) (time.Time, error) {
	var err error
	for _, l := range timeLayouts {
		var t time.Time
		if t, err = time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// compactObject returns metadata, a JSON object known to be valid (a member
// of a decoded batch), compact: as it is when it holds no whitespace
// outside its strings (json.Compact would return the same bytes, in a new
// buffer), else through json.Compact, which also validates it.
func compactObject(v json.RawMessage) ([]byte, bool) {
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	if isCompact(v) {
		return v, true
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// isCompact reports whether v has no JSON whitespace outside its strings.
func isCompact(v []byte) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case ' ', '\t', '\n', '\r':
			return false
		case '"':
			if i = stringEnd(v, i); i < 0 {
				return false
			}
			i--
		}
	}
	return true
}
