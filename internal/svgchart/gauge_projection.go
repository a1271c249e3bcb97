package svgchart

import (
	"fmt"
	"strings"
)

// GaugeProjected is Gauge with a dashed mark where the month's projected
// spend lands (a percent of the budget): how far the bar is expected to
// run by the month's end. A projection past 100 % is marked at the bar's
// end, drawn over.
func GaugeProjected(title string, percent, projected float64, thresholds []float64, sz Size) string {
	g := Gauge(title, percent, thresholds, sz)
	barY, barH := sz.H*0.3, sz.H*0.35
	x := min(max(projected, 0), 100) / 100 * sz.W
	class := "projection"
	if projected > 100 {
		class = "projection over"
	}
	mark := fmt.Sprintf(`<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"/>`, num(x), num(barY-6), num(x), num(barY+barH+6), class)
	return strings.TrimSuffix(g, "</svg>") + mark + "</svg>"
}
