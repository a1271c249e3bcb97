package svgchart

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// wellFormed fails unless s parses as XML: a chart must never break the
// page, whatever its labels hold.
func wellFormed(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed SVG: %v\n%s", err, s)
		}
	}
}

func usd(f float64) string { return "$" + num(f) }

func TestCharts(t *testing.T) {
	tests := []struct {
		name   string
		svg    string
		has    []string
		hasNot []string
		count  map[string]int
	}{
		{name: "line over three days",
			svg:   Line("spend", []Point{{"Mon", 1, "$1"}, {"Tue", 3, "$3"}, {"Wed", 0, "$0"}}, usd, Size{300, 100}),
			has:   []string{`<polyline class="stroke" points="28,57.3 150,28 272,72"/>`, ">Mon<", ">Tue<", ">Wed<", ">$3<"},
			count: map[string]int{"<circle": 3}},
		{name: "line all zero stays on the axis",
			svg: Line("spend", []Point{{"a", 0, ""}, {"b", 0, ""}}, usd, Size{100, 100}),
			has: []string{`points="28,72 72,72"`}},
		{name: "line with nothing is the empty state",
			svg: Line("spend", nil, usd, Size{100, 50}),
			has: []string{"no data in this range", `class="chart line empty"`}},
		{name: "columns pair two series and leave an unknown value out",
			svg: Columns("bill", [2]string{"provider", "llmcost"}, []Pair{{"d1", 2, 4, "$2", "$4", false, false},
				{"d2", 0, 2, "", "$2", true, true}}, usd, Size{200, 100}),
			has: []string{`x="35.2" y="50" width="28.8" height="22" class="bar a"`, `x="64" y="28" width="28.8" height="44" class="bar b"`,
				`x="136" y="50" width="28.8" height="22" class="bar b"`, `class="pair pending"`, "d1 · provider: $2", ">llmcost<", ">$4<"},
			count: map[string]int{`<g class="pair`: 2, `class="bar a">`: 1, `class="bar b">`: 2}},
		{name: "columns with nothing is the empty state",
			svg: Columns("bill", [2]string{"a", "b"}, nil, usd, Size{100, 50}),
			has: []string{"no data in this range", `class="chart columns empty"`}},
		{name: "bars scale to the largest",
			svg:   Bars("agents", []Point{{"planner", 4, "$4"}, {"coder", 2, "$2"}}, Size{200, 40}),
			has:   []string{`width="100" height="12" class="bar"`, `width="50" height="12" class="bar"`, ">planner<"},
			count: map[string]int{`class="bar"`: 2}},
		{name: "labels are escaped",
			svg: Bars("x", []Point{{`<script>&"`, 1, "1"}}, Size{200, 20}),
			has: []string{"&lt;script&gt;&amp;&#34;"}, hasNot: []string{"<script>"}},
		{name: "histogram marks the tail",
			svg:   Histogram("runs", []Bucket{{"$0", 5, false}, {"$1", 10, false}, {"$2", 1, true}}, Size{200, 100}),
			has:   []string{`class="bar tail"`, `class="tail-label">tail<`, "$2: 1 runs"},
			count: map[string]int{`class="bar"`: 2, `class="bar tail"`: 1}},
		{name: "histogram without a tail has no mark",
			svg:    Histogram("runs", []Bucket{{"$0", 1, false}}, Size{200, 100}),
			hasNot: []string{"tail-mark"}},
		{name: "waterfall indents by depth and marks failures",
			svg: Waterfall("trace", []Span{{"plan", "$1", 0, 0, 100, false}, {"search", "$2", 1, 100, 100, true}}, 400),
			has: []string{`<text x="4" y="15" class="label">plan</text>`, `<text x="16" y="37" class="label">search</text>`,
				`x="128" y="4" width="132" height="14" class="bar"`, `x="260" y="26" width="132" height="14" class="bar failed"`}},
		{name: "waterfall of a run with no calls",
			svg: Waterfall("trace", nil, 400), has: []string{"this run made no calls"}},
		{name: "gauge below the first threshold",
			svg: Gauge("budget", 25, []float64{50, 80, 100}, Size{200, 40}),
			has: []string{`width="50" height="14" class="fill"`, `class="threshold"`, ">50%<"}, hasNot: []string{"crossed"}},
		{name: "gauge past two thresholds",
			svg:   Gauge("budget", 85, []float64{50, 80, 100}, Size{200, 40}),
			has:   []string{`class="fill warn"`},
			count: map[string]int{`class="threshold crossed"`: 2, `class="threshold"`: 1}},
		{name: "gauge over budget is drawn full",
			svg: Gauge("budget", 130, []float64{100}, Size{200, 40}),
			has: []string{`width="200" height="14" class="fill over"`, `class="threshold crossed"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wellFormed(t, tt.svg)
			for _, h := range tt.has {
				if !strings.Contains(tt.svg, h) {
					t.Errorf("missing %q in\n%s", h, tt.svg)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(tt.svg, h) {
					t.Errorf("unexpected %q in\n%s", h, tt.svg)
				}
			}
			for h, n := range tt.count {
				if got := strings.Count(tt.svg, h); got != n {
					t.Errorf("%q appears %d times, want %d", h, got, n)
				}
			}
		})
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 1.25: "1.2", 2.0: "2", -0.01: "0", 12.34: "12.3"} {
		if got := num(in); got != want {
			t.Errorf("num(%v) = %q, want %q", in, got, want)
		}
	}
}
