package agentview

import "testing"

func TestChooseSignal(t *testing.T) {
	cheaper := &Downgrade{From: "claude-sonnet-4-5", To: "claude-haiku-4-5", SavingsNano: 7_000}
	cases := []struct {
		name   string
		in     SignalInput
		kind   string
		amount *int64
	}{
		{"breach beats repeated work", SignalInput{CostNano: 1000, Calls: 10, TracedCalls: 10, OutputOver16Calls: 10,
			Breaches: 2, BreachCostNano: 300, RepeatedCost: 900}, KindBreach, p(300)},
		{"repeated above 5%", SignalInput{CostNano: 1000, Calls: 10, TracedCalls: 10, OutputOver16Calls: 10,
			RepeatedCost: 51, FailedCost: 900}, KindRepeatedWork, p(51)},
		{"repeated at exactly 5% does not hold", SignalInput{CostNano: 1000, Calls: 10, TracedCalls: 10, OutputOver16Calls: 10,
			RepeatedCost: 50, FailedCost: 21}, KindFailedSpend, p(21)},
		{"failed at exactly 2% does not hold", SignalInput{CostNano: 1000, Calls: 10, TracedCalls: 10, OutputOver16Calls: 10,
			FailedCost: 20}, KindNone, nil},
		{"99 short calls are not classification", SignalInput{CostNano: 1000, Calls: 99, TracedCalls: 99, OutputOver16Calls: 0},
			KindNone, nil},
		{"100 short calls are classification", SignalInput{CostNano: 1000, Calls: 100, TracedCalls: 100, OutputOver16Calls: 0,
			Cheaper: cheaper}, KindClassification, p(7_000)},
		{"classification without a sibling has no amount", SignalInput{CostNano: 1000, Calls: 100, OutputOver16Calls: 0},
			KindClassification, nil},
		{"one 17-token output breaks classification", SignalInput{CostNano: 1000, Calls: 100, OutputOver16Calls: 1},
			KindUntraced, nil},
		{"untraced", SignalInput{CostNano: 1000, Calls: 3}, KindUntraced, nil},
		{"one traced call is not untraced", SignalInput{CostNano: 1000, Calls: 3, TracedCalls: 1}, KindNone, nil},
		{"huge spend does not overflow", SignalInput{CostNano: 1 << 62, Calls: 3, TracedCalls: 3, RepeatedCost: (1 << 62) / 10},
			KindRepeatedWork, p((1 << 62) / 10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ChooseSignal(c.in)
			if got.Kind != c.kind {
				t.Fatalf("kind %q, want %q", got.Kind, c.kind)
			}
			if (got.AmountNano == nil) != (c.amount == nil) || (c.amount != nil && *got.AmountNano != *c.amount) {
				t.Fatalf("amount %v, want %v", deref(got.AmountNano), deref(c.amount))
			}
			if got.Title == "" || got.Detail == "" {
				t.Fatalf("title %q detail %q must be sentences", got.Title, got.Detail)
			}
		})
	}
}

func TestSignalTextNamesTheFigures(t *testing.T) {
	s := ChooseSignal(SignalInput{CostNano: 10_000_000_000, Calls: 4, TracedCalls: 4, RepeatedCost: 2_500_000_000, RepeatedRuns: 3})
	if s.Title != "Repeated work is 25.00% of spend" {
		t.Fatalf("title %q", s.Title)
	}
	want := "Identical calls repeated inside 3 run(s) cost $2.5. Cache the results of identical calls within a run, or stop the loop that repeats them."
	if s.Detail != want {
		t.Fatalf("detail %q", s.Detail)
	}
}

func p(v int64) *int64 { return &v }

func deref(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}
