package web

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
)

// Funcs are the template functions of every page. Each takes the type the
// records carry, so a template that hands one the wrong value fails when
// it is rendered (the tests render every page), not with a silent dash.
// The opt* forms take a field that may be null and show it as an em dash.
var Funcs = template.FuncMap{
	"usd":      USD,
	"optUSD":   OptUSD,
	"pct":      Percent,
	"count":    Count,
	"dec":      Decimal,
	"ms":       Millis,
	"optMS":    OptMillis,
	"intMS":    IntMillis,
	"optIntMS": OptIntMillis,
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

// dash stands for a value that is not known (null).
const dash = "—"

// USD formats an amount for a person. The API's exact value is in the
// record; this is only its display.
func USD(m wire.Money) string { return Dollars(m.USD()) }

// OptUSD is USD of a nullable amount.
func OptUSD(m *wire.Money) string {
	if m == nil {
		return dash
	}
	return USD(*m)
}

// Dollars formats dollars: cents from $1 up, with thousands separators;
// below $1, four significant digits so a $0.0004 call does not read as
// $0.00. Charts label their axes with it.
func Dollars(f float64) string {
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
func Percent(p *float64) string {
	if p == nil {
		return dash
	}
	return percent(*p)
}

func percent(f float64) string {
	s := strconv.FormatFloat(math.Round(f*10)/10, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + "%"
}

// Count formats an integer with thousands separators.
func Count(n int64) string { return thousands(strconv.FormatInt(n, 10)) }

// Millis formats a latency: ms below a second, seconds above.
func Millis(f float64) string {
	if f >= 1000 {
		return strconv.FormatFloat(math.Round(f/100)/10, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(math.Round(f), 'f', 0, 64) + " ms"
}

// OptMillis is Millis of a nullable latency.
func OptMillis(f *float64) string {
	if f == nil {
		return dash
	}
	return Millis(*f)
}

// IntMillis is Millis of whole milliseconds (a run's duration).
func IntMillis(n int64) string { return Millis(float64(n)) }

// OptIntMillis is Millis of nullable whole milliseconds (a call's
// latency).
func OptIntMillis(n *int64) string {
	if n == nil {
		return dash
	}
	return IntMillis(*n)
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
func Change(p *float64) string {
	switch {
	case p == nil:
		return "new"
	case *p > 0:
		return "▲ " + percent(*p)
	case *p < 0:
		return "▼ " + percent(-*p)
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
func Decimal(digits int, f *float64) string {
	if f == nil {
		return dash
	}
	return strconv.FormatFloat(*f, 'f', digits, 64)
}

// Trend is the CSS class of a spend change: more spend is "up" (drawn as
// bad), less is "down".
func Trend(p *float64) string {
	switch {
	case p == nil || *p == 0:
		return ""
	case *p > 0:
		return "up"
	}
	return "down"
}
