package svgchart

import (
	"fmt"
	"strings"
)

// Pair is one x position of a two-series chart: its label and the two
// values drawn side by side, each with its tooltip.
type Pair struct {
	Label          string
	A, B           float64
	ATitle, BTitle string
	// NoA leaves the first bar out: its value is not known, which a
	// zero-height bar would misstate as nothing.
	NoA bool
	// Pending draws the pair faint: its values may still change.
	Pending bool
}

// Columns draws two series as paired vertical bars, one pair per point,
// names[0] ("a") on the left of each pair and names[1] ("b") beside it,
// under a legend naming both, with the first, middle and last labels on
// the x axis and the maximum of either series on the y axis (yLabel
// formats it). Each pair is a group of class "pair", so a page or test
// counts the points by it.
func Columns(title string, names [2]string, pairs []Pair, yLabel func(float64) string, sz Size) string {
	if len(pairs) == 0 {
		return Empty("columns", "no data in this range", sz)
	}
	top := 0.0
	for _, p := range pairs {
		if !p.NoA {
			top = max(top, p.A)
		}
		top = max(top, p.B)
	}
	plotW, plotH := sz.W-2*pad, sz.H-2*pad
	slot := plotW / float64(len(pairs))
	barW := max(slot*0.4, 0.5)
	h := func(v float64) float64 {
		if top <= 0 || v <= 0 {
			return 0
		}
		return plotH * v / top
	}
	var b strings.Builder
	open(&b, "columns", title, sz)
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="axis"/>`, num(pad), num(pad+plotH), num(pad+plotW), num(pad+plotH))
	bar := func(x, v float64, class, label, name, tip string) {
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" class="bar %s"><title>%s</title></rect>`,
			num(x), num(pad+plotH-h(v)), num(barW), num(h(v)), class, esc(label+" · "+name+": "+tip))
	}
	for i, p := range pairs {
		class := "pair"
		if p.Pending {
			class = "pair pending"
		}
		fmt.Fprintf(&b, `<g class="%s">`, class)
		x := pad + slot*float64(i) + slot*0.1
		if !p.NoA {
			bar(x, p.A, "a", p.Label, names[0], p.ATitle)
		}
		bar(x+barW, p.B, "b", p.Label, names[1], p.BTitle)
		b.WriteString("</g>")
	}
	mid := func(i int) float64 { return pad + slot*(float64(i)+0.5) }
	for _, i := range ticks(len(pairs)) {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" class="tick">%s</text>`, num(mid(i)), num(sz.H-8), esc(pairs[i].Label))
	}
	fmt.Fprintf(&b, `<text x="%s" y="%s" class="tick">%s</text>`, num(pad), num(pad-8), esc(yLabel(top)))
	legend(&b, names, sz)
	b.WriteString("</svg>")
	return b.String()
}

// legend names the two series at the top right, each beside a swatch of
// its bar's class.
func legend(b *strings.Builder, names [2]string, sz Size) {
	x := sz.W - pad
	for i := 1; i >= 0; i-- {
		w := 7*float64(len(names[i])) + 16
		x -= w
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="10" height="10" class="bar %s"/><text x="%s" y="%s" class="legend">%s</text>`,
			num(x), num(pad-18), []string{"a", "b"}[i], num(x+14), num(pad-9), esc(names[i]))
	}
}
