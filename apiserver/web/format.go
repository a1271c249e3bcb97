package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
)

// Funcs are the template functions of every page.
var Funcs = template.FuncMap{
	"usd":      USD,
	"pct":      Percent,
	"count":    Count,
	"dec":      Decimal,
	"ms":       Millis,
	"when":     When,
	"day":      Day,
	"change":   Change,
	"trend":    Trend,
	"deref":    Deref,
	"derefInt": DerefInt,
	"svg":      func(s string) template.HTML { return template.HTML(s) }, // markup from internal/svgchart, escaped there
	"inc":      func(i int) int { return i + 1 },
	"join":     strings.Join,
	"contains": func(list []string, s string) bool {
		for _, v := range list {
			if v == s {
				return true
			}
		}
		return false
	},
}

// number reads a money or count value as the API gives it: a decimal
// string (json.Number), a string pointer, or a plain number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case *json.Number: // before Stringer: a nil one would panic there
		if x == nil {
			return 0, false
		}
		return number(*x)
	case fmt.Stringer:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	case *string:
		if x == nil {
			return 0, false
		}
		return number(*x)
	case *float64:
		if x == nil {
			return 0, false
		}
		return *x, true
	case *int64:
		if x == nil {
			return 0, false
		}
		return float64(*x), true
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// USD formats dollars for a person: cents from $1 up, with thousands
// separators; below $1, four significant digits so a $0.0004 call does not
// read as $0.00; nothing known is an em dash. The API's exact value is in
// the record; this is only its display.
func USD(v any) string {
	f, ok := number(v)
	if !ok {
		return "—"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	switch {
	case f == 0:
		return "$0.00"
	case f >= 1:
		return sign + "$" + thousands(fmt.Sprintf("%.2f", f))
	case f >= 0.01:
		return sign + "$" + fmt.Sprintf("%.2f", f)
	}
	digits := 4 - int(math.Floor(math.Log10(f))) - 1
	s := strconv.FormatFloat(f, 'f', min(digits, 9), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
	}
	return sign + "$" + s
}

// thousands puts commas into the integer part of a decimal string.
func thousands(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// Percent formats a 0–100 percentage with one decimal (none for whole
// numbers); nothing known (a rate over no calls) is an em dash.
func Percent(v any) string {
	f, ok := number(v)
	if !ok {
		return "—"
	}
	s := strconv.FormatFloat(math.Round(f*10)/10, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + "%"
}

// Count formats an integer with thousands separators.
func Count(v any) string {
	f, ok := number(v)
	if !ok {
		return "—"
	}
	return thousands(strconv.FormatFloat(math.Round(f), 'f', 0, 64))
}

// Millis formats a latency: ms below a second, seconds above.
func Millis(v any) string {
	f, ok := number(v)
	if !ok {
		return "—"
	}
	if f >= 1000 {
		return strconv.FormatFloat(math.Round(f/100)/10, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(math.Round(f), 'f', 0, 64) + " ms"
}

// When formats an RFC 3339 timestamp as UTC date and minute.
func When(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// Day formats an RFC 3339 timestamp as a short day, or an hour when it is
// not midnight (the time axis of a 24h range).
func Day(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 {
		return t.Format("Jan 2")
	}
	return t.Format("15:04")
}

// Change formats a percent change with its arrow: ▲ up, ▼ down, = flat,
// "new" when there was nothing before (null).
func Change(v any) string {
	f, ok := number(v)
	switch {
	case !ok:
		return "new"
	case f > 0:
		return "▲ " + Percent(f)
	case f < 0:
		return "▼ " + Percent(-f)
	}
	return "= 0%"
}

// Deref is the string a nullable field holds, or "" for null.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// DerefInt is the number a nullable integer holds, or 0 for null.
func DerefInt(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// Tick labels a time bucket on a chart axis: the hour on a 24h range, the
// day on longer ones.
func Tick(ts, rng string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	if rng == "24h" || rng == "1h" {
		return t.UTC().Format("15:04")
	}
	return t.UTC().Format("Jan 2")
}

// Decimal formats a plain number (calls per run) with digits decimals; an
// absent one is an em dash.
func Decimal(digits int, v any) string {
	f, ok := number(v)
	if !ok {
		return "—"
	}
	return strconv.FormatFloat(f, 'f', digits, 64)
}

// Trend is the CSS class of a spend change: more spend is "up" (drawn as
// bad), less is "down".
func Trend(v any) string {
	f, ok := number(v)
	switch {
	case !ok || f == 0:
		return ""
	case f > 0:
		return "up"
	}
	return "down"
}
