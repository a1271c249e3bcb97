package svgchart

import (
	"fmt"
	"strings"
)

// Point is one value on a line or a bar: its label (an axis tick or a bar
// name) and the value drawn.
type Point struct {
	Label string
	Value float64
	// Title is the tooltip of the point (its exact formatted value).
	Title string
}

// Line draws points left to right as a line over a filled area, with the
// first, middle and last labels on the x axis and the maximum on the y
// axis (yLabel formats it).
func Line(title string, pts []Point, yLabel func(float64) string, sz Size) string {
	if len(pts) == 0 {
		return Empty("line", "no data in this range", sz)
	}
	top := maxValue(pts)
	plotW, plotH := sz.W-2*pad, sz.H-2*pad
	x := func(i int) float64 {
		if len(pts) == 1 {
			return pad + plotW/2
		}
		return pad + plotW*float64(i)/float64(len(pts)-1)
	}
	y := func(v float64) float64 {
		if top == 0 {
			return pad + plotH
		}
		return pad + plotH*(1-v/top)
	}
	var b, line strings.Builder
	open(&b, "line", title, sz)
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="axis"/>`, num(pad), num(pad+plotH), num(pad+plotW), num(pad+plotH))
	for i, p := range pts {
		fmt.Fprintf(&line, "%s,%s ", num(x(i)), num(y(p.Value)))
	}
	pl := strings.TrimSpace(line.String())
	fmt.Fprintf(&b, `<polygon class="area" points="%s,%s %s %s,%s"/>`, num(x(0)), num(pad+plotH), pl, num(x(len(pts)-1)), num(pad+plotH))
	fmt.Fprintf(&b, `<polyline class="stroke" points="%s"/>`, pl)
	for i, p := range pts {
		if len(pts) > maxDots { // a dot per hour of a week is noise
			break
		}
		fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2" class="dot"><title>%s</title></circle>`, num(x(i)), num(y(p.Value)), esc(p.Label+": "+p.Title))
	}
	for _, i := range ticks(len(pts)) {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" class="tick">%s</text>`, num(x(i)), num(sz.H-8), esc(pts[i].Label))
	}
	fmt.Fprintf(&b, `<text x="%s" y="%s" class="tick">%s</text>`, num(pad), num(pad-8), esc(yLabel(top)))
	b.WriteString("</svg>")
	return b.String()
}

// maxDots is the most points a line marks with a dot (and its tooltip).
const maxDots = 60

// ticks are the indexes labelled on an x axis of n points: first, middle
// and last (fewer when they coincide).
func ticks(n int) []int {
	switch {
	case n <= 0:
		return nil
	case n == 1:
		return []int{0}
	case n == 2:
		return []int{0, 1}
	}
	return []int{0, (n - 1) / 2, n - 1}
}

// Bars draws one horizontal bar per point, longest for the largest value,
// with the label on the left and the title on the right.
func Bars(title string, pts []Point, sz Size) string {
	if len(pts) == 0 {
		return Empty("bars", "no data in this range", sz)
	}
	top := maxValue(pts)
	rowH := sz.H / float64(len(pts))
	labelW, valueW := sz.W*0.3, sz.W*0.2
	plotW := sz.W - labelW - valueW
	var b strings.Builder
	open(&b, "bars", title, sz)
	for i, p := range pts {
		w := 0.0
		if top > 0 {
			w = plotW * p.Value / top
		}
		y := rowH * float64(i)
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" class="label">%s</text>`, num(labelW-6), num(y+rowH*0.65), esc(p.Label))
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" class="bar"><title>%s</title></rect>`,
			num(labelW), num(y+rowH*0.2), num(w), num(rowH*0.6), esc(p.Label+": "+p.Title))
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="value">%s</text>`, num(labelW+w+6), num(y+rowH*0.65), esc(p.Title))
	}
	b.WriteString("</svg>")
	return b.String()
}
