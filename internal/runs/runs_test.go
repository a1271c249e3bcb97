package runs

import (
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func ms(v int64) *int64 { return &v }

func call(id string, sec int, span, parent string) Call {
	return Call{EventID: id, AgentName: "a", Model: "m", Timestamp: t0.Add(time.Duration(sec) * time.Second),
		SpanID: span, ParentSpanID: parent, CostNano: 100, InputTokens: 10, TotalTokens: 15, Success: true}
}

func TestBuildDepthOrderAndTotals(t *testing.T) {
	root := call("e1", 0, "s1", "")
	root.Workflow, root.StepName = "", "plan"
	child := call("e2", 1, "s2", "s1")
	child.Workflow, child.StepName, child.ToolName, child.LatencyMS = "wf", "search", "web", ms(3000)
	grand := call("e3", 1, "", "s2") // no span id: its event id stands in
	grand.StepName, grand.Success, grand.CostNano, grand.Model = "search", false, 250, "m-mini"
	orphan := call("e0", 2, "s9", "missing")
	orphan.AgentName = "b"
	r := Build([]Call{grand, orphan, child, root})
	s := r.Summary
	want := Summary{AgentName: "a", Workflow: "wf", FirstTS: t0, FirstEventID: "e1",
		LastEnd: t0.Add(4 * time.Second), Calls: 4, CostNano: 550, ToolCalls: 1, FailedCalls: 1,
		SuccessCalls: 3, Tokens: 60, MaxDepth: 2, Steps: 2}
	if s != want {
		t.Fatalf("summary\n got %+v\nwant %+v", s, want)
	}
	if s.DurationMS() != 4000 {
		t.Fatalf("duration %d", s.DurationMS())
	}
	order := []struct {
		id           string
		depth, index int64
	}{{"e1", 0, 0}, {"e2", 1, 1}, {"e3", 2, 2}, {"e0", 0, 3}}
	for i, w := range order {
		sp := r.Spans[i]
		if sp.EventID != w.id || sp.Depth != w.depth || sp.StepIndex != w.index {
			t.Fatalf("span %d: %s depth %d index %d, want %+v", i, sp.EventID, sp.Depth, sp.StepIndex, w)
		}
	}
	// The two search calls: one a tool call, two models, sorted.
	if len(r.Steps) != 2 || !reflect.DeepEqual(r.Steps[1], Group{Name: "search", Calls: 2, CostNano: 350, Tokens: 30,
		LatencySum: 3000, LatencyCount: 1, SuccessCalls: 1, ToolCalls: 1, Models: []string{"m", "m-mini"}}) {
		t.Fatalf("steps %+v", r.Steps)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "web" || r.Tools[0].Calls != 1 {
		t.Fatalf("tools %+v", r.Tools)
	}
}

func TestDepthStopsOnLoops(t *testing.T) {
	parent := map[string]string{"a": "b", "b": "a", "c": "c"}
	if d := Depth("a", parent); d != 1 {
		t.Fatalf("a↔b loop: depth %d, want 1", d)
	}
	if d := Depth("c", parent); d != 0 {
		t.Fatalf("self parent: depth %d, want 0", d)
	}
}

func TestRepeats(t *testing.T) {
	mk := func(id string, sec int, hash string, cost int64) Call {
		c := call(id, sec, "", "")
		c.Workflow, c.StepName, c.RequestHash, c.CostNano = "wf", "fetch", hash, cost
		return c
	}
	other := mk("e5", 5, "", 7)
	other.InputTokens = 11 // differs: not identical
	r := Build([]Call{mk("e3", 3, "", 30), mk("e1", 1, "", 10), mk("e2", 2, "", 20),
		mk("e4", 4, "h", 40), mk("e6", 6, "h", 60), mk("e7", 7, "x", 70), other})
	if len(r.Repeats) != 2 {
		t.Fatalf("repeats %+v", r.Repeats)
	}
	if g := r.Repeats[0]; g.RequestHash != "" || g.Occurrences != 3 || g.SpendNano != 60 || g.WastedNano != 50 ||
		!g.FirstSeen.Equal(t0.Add(time.Second)) {
		t.Fatalf("no-hash group %+v", g)
	}
	if g := r.Repeats[1]; g.RequestHash != "h" || g.Occurrences != 2 || g.SpendNano != 100 || g.WastedNano != 60 {
		t.Fatalf("hash group %+v", g)
	}
}

func TestDistribute(t *testing.T) {
	costs := []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 1000}
	d := Distribute(costs, 6)
	// percentile_cont: p50 at position 4.5 → 55; p95 at 8.55 → 90 + 0.55×910
	// = 590.5 → 591 rounded; p99 at 8.91 → 90 + 0.91×910 = 918.1 → 918.
	if d.P50 != 55 || d.P95 != 591 || d.P99 != 918 || d.Max != 1000 || d.Runs != 10 {
		t.Fatalf("percentiles %+v", d)
	}
	if d.TailRuns != 1 || d.TailCostNano != 1000 || d.TotalCostNano != 1450 {
		t.Fatalf("tail %+v", d)
	}
	// [10, 590.5) in five buckets of 116.1: 10, 126.1, 242.2, 358.3, 474.4, 590.5.
	want := []Bucket{{10, 126, 9, false}, {126, 242, 0, false}, {242, 358, 0, false},
		{358, 474, 0, false}, {474, 591, 0, false}, {591, 1000, 1, true}}
	for i, b := range want {
		if d.Histogram[i] != b {
			t.Fatalf("bucket %d: %+v, want %+v", i, d.Histogram[i], b)
		}
	}
	r := d.TailRatio() // 918.1 / 55
	if f, _ := r.Float64(); f < 16.69 || f > 16.70 {
		t.Fatalf("tail ratio %v", f)
	}
}

func TestDistributeFlat(t *testing.T) {
	d := Distribute([]int64{5, 5, 5}, 6)
	if d.P50 != 5 || d.P95 != 5 || d.TailRuns != 3 || d.Histogram[5].Count != 3 || d.Histogram[0].Count != 0 {
		t.Fatalf("flat %+v", d)
	}
	if z := Distribute([]int64{0, 0}, 6); z.TailRatio() != nil {
		t.Fatal("p50 0: tail ratio must be nil")
	}
}

func TestPercentileMatchesPercentileCont(t *testing.T) {
	for _, c := range []struct {
		v    []int64
		p    int64
		want string
	}{{[]int64{7}, 95, "7"}, {[]int64{1, 2}, 50, "3/2"}, {[]int64{1, 2, 3, 4}, 95, "77/20"}} {
		if got := Percentile(c.v, c.p).RatString(); got != c.want {
			t.Fatalf("%v p%d: %s, want %s", c.v, c.p, got, c.want)
		}
	}
}
