package svgchart

import (
	"fmt"
	"strings"
)

// Bucket is one histogram bar: its range label, how many fall in it, and
// whether it is the tail (drawn in the alert colour, labelled "tail").
type Bucket struct {
	Label string
	Count int64
	Tail  bool
}

// Histogram draws buckets as vertical bars, the tail ones marked.
func Histogram(title string, buckets []Bucket, sz Size) string {
	if len(buckets) == 0 {
		return Empty("histogram", "no runs in this range", sz)
	}
	vals := make([]float64, len(buckets))
	for i, bk := range buckets {
		vals[i] = float64(bk.Count)
	}
	top := maxOf(vals, 0)
	plotW, plotH := sz.W-2*pad, sz.H-2*pad
	bw := plotW / float64(len(buckets))
	var b strings.Builder
	open(&b, "histogram", title, sz)
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="axis"/>`, num(pad), num(pad+plotH), num(pad+plotW), num(pad+plotH))
	tailX := -1.0
	for i, bk := range buckets {
		h := 0.0
		if top > 0 {
			h = plotH * float64(bk.Count) / top
		}
		x := pad + bw*float64(i)
		class := "bar"
		if bk.Tail {
			class = "bar tail"
			if tailX < 0 {
				tailX = x
			}
		}
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" class="%s"><title>%s: %d runs</title></rect>`,
			num(x+1), num(pad+plotH-h), num(bw-2), num(h), class, esc(bk.Label), bk.Count)
	}
	if tailX >= 0 {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="tail-mark"/><text x="%s" y="%s" text-anchor="end" class="tail-label">tail</text>`,
			num(tailX), num(pad-4), num(tailX), num(pad+plotH), num(tailX-4), num(pad+4))
	}
	fmt.Fprintf(&b, `<text x="%s" y="%s" class="tick">%s</text>`, num(pad), num(sz.H-8), esc(buckets[0].Label))
	fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" class="tick">%s</text>`, num(pad+plotW), num(sz.H-8), esc(buckets[len(buckets)-1].Label))
	b.WriteString("</svg>")
	return b.String()
}

// Span is one row of a waterfall: its label, its depth in the call tree
// (indent), where it starts and how long it lasts (any unit, the same for
// every span), and whether it failed.
type Span struct {
	Label  string
	Title  string
	Depth  int
	Start  float64
	Length float64
	Failed bool
}

// Waterfall draws one row per span, in the order given, indented by
// depth, each bar from Start over Length on a shared axis.
func Waterfall(title string, spans []Span, width float64) string {
	const rowH = 22.0
	sz := Size{W: width, H: rowH*float64(max(len(spans), 1)) + 4}
	if len(spans) == 0 {
		return Empty("waterfall", "this run made no calls", Size{W: width, H: 60})
	}
	end := 0.0
	for _, s := range spans {
		end = max(end, s.Start+s.Length)
	}
	labelW := width * 0.32
	plotW := width - labelW - 8
	var b strings.Builder
	open(&b, "waterfall", title, sz)
	for i, s := range spans {
		y := rowH * float64(i)
		x, w := labelW, 2.0
		if end > 0 {
			x = labelW + plotW*s.Start/end
			w = max(plotW*s.Length/end, 2)
		}
		class := "bar"
		if s.Failed {
			class = "bar failed"
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="label">%s</text>`, num(4+12*float64(s.Depth)), num(y+rowH*0.68), esc(s.Label))
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" class="%s"><title>%s</title></rect>`,
			num(x), num(y+4), num(w), num(rowH-8), class, esc(s.Label+": "+s.Title))
	}
	b.WriteString("</svg>")
	return b.String()
}

// Gauge draws a budget's use as a horizontal bar from 0 to 100 % (more is
// drawn full and marked over), with a tick at each threshold; crossed
// thresholds are drawn as reached.
func Gauge(title string, percent float64, thresholds []float64, sz Size) string {
	var b strings.Builder
	open(&b, "gauge", title, sz)
	barY, barH := sz.H*0.3, sz.H*0.35
	fill := min(max(percent, 0), 100) / 100 * sz.W
	class := "fill"
	switch {
	case percent >= 100:
		class = "fill over"
	case len(thresholds) > 0 && percent >= thresholds[0]:
		class = "fill warn"
	}
	fmt.Fprintf(&b, `<rect x="0" y="%s" width="%s" height="%s" class="track"/>`, num(barY), num(sz.W), num(barH))
	fmt.Fprintf(&b, `<rect x="0" y="%s" width="%s" height="%s" class="%s"/>`, num(barY), num(fill), num(barH), class)
	for _, t := range thresholds {
		x := min(max(t, 0), 100) / 100 * sz.W
		tc := "threshold"
		if percent >= t {
			tc = "threshold crossed"
		}
		anchor := "middle"
		if t >= 95 {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"/><text x="%s" y="%s" text-anchor="%s" class="tick">%s%%</text>`,
			num(x), num(barY-4), num(x), num(barY+barH+4), tc, num(x), num(sz.H-2), anchor, num(t))
	}
	b.WriteString("</svg>")
	return b.String()
}
