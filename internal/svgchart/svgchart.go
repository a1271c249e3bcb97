// Package svgchart draws the dashboard's charts as inline SVG on the
// server: bars, a line over time, paired columns comparing two series, a
// histogram with its tail marked, a waterfall of a trace's spans and a
// budget gauge. It is pure (no I/O, no
// JavaScript, nothing fetched): the same input always gives the same
// markup, so pages stay readable without scripts and tests compare text.
// Values are float64 because they are only drawn; the numbers a page
// prints come exact from the API records, never from here.
package svgchart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Size is a chart's drawing box in SVG user units; the SVG scales to
// its container (viewBox), so these are proportions more than pixels.
type Size struct{ W, H float64 }

// pad is the room kept for axis labels.
const pad = 28.0

// esc escapes text for an SVG text node or attribute.
func esc(s string) string { return html.EscapeString(s) }

// num formats a coordinate with at most one decimal, so output is stable
// and short.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	s := fmt.Sprintf("%.1f", f)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

// open starts an svg element with the chart's class and an accessible
// title (screen readers and tooltips read it).
func open(b *strings.Builder, class, title string, sz Size) {
	fmt.Fprintf(b, `<svg class="chart %s" viewBox="0 0 %s %s" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg"><title>%s</title>`,
		class, num(sz.W), num(sz.H), esc(title), esc(title))
}

// maxOf is the largest value, at least min so an all-zero chart draws
// flat instead of dividing by zero.
// maxValue is the largest value of pts, and at least 0 (a chart's scale).
func maxValue(pts []Point) float64 {
	m := 0.0
	for _, p := range pts {
		if p.Value > m {
			m = p.Value
		}
	}
	return m
}

func maxOf(vals []float64, floor float64) float64 {
	m := floor
	for _, v := range vals {
		if v > m {
			m = v
		}
	}
	return m
}

// Empty is the markup of a chart with nothing to draw: a framed box with
// the message, so the page keeps its layout.
func Empty(class, msg string, sz Size) string {
	var b strings.Builder
	open(&b, class+" empty", msg, sz)
	fmt.Fprintf(&b, `<rect x="0.5" y="0.5" width="%s" height="%s" class="frame"/><text x="%s" y="%s" text-anchor="middle" class="muted">%s</text></svg>`,
		num(sz.W-1), num(sz.H-1), num(sz.W/2), num(sz.H/2), esc(msg))
	return b.String()
}
