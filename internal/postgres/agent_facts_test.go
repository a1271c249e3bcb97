package postgres_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

func TestAgentDays(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 8, 3, 22, 0, 0, 0, time.UTC)
	cost := func(c int64, ok bool, trace string, agent string) func(*event.Event) {
		return func(e *event.Event) { e.CostNano, e.Success, e.TraceID, e.AgentName = c, ok, trace, agent }
	}
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "1", "m", t0, 10, 5, cost(100, true, "r1", "bot one")),
		stored(p, "2", "m", t0.Add(time.Hour), 10, 40, cost(30, false, "", "bot one")),
		stored(p, "3", "m", t0.Add(3*time.Hour), 10, 7, cost(50, false, "r2", "bot one")),
		stored(p, "4", "m", t0.Add(3*time.Hour), 10, 9, cost(1, true, "", "other")),
		stored(p, "5", "m", t0.Add(-time.Hour), 10, 9, cost(1, true, "", "bot one")), // before the window
	}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.AgentDays(ctx, p, "bot one", t0, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	day1, day2 := time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC), time.Date(2026, 8, 4, 0, 0, 0, 0, time.UTC)
	want := []postgres.AgentDay{
		{AgentName: "bot one", Day: day1, Calls: 2, CostNano: 130, FailedCalls: 1, FailedCost: 30, TracedCalls: 1,
			MaxOutput: 40, FirstSeen: t0, LastSeen: t0.Add(time.Hour)},
		{AgentName: "bot one", Day: day2, Calls: 1, CostNano: 50, FailedCalls: 1, FailedCost: 50, TracedCalls: 1,
			MaxOutput: 7, FirstSeen: t0.Add(3 * time.Hour), LastSeen: t0.Add(3 * time.Hour)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	all, err := db.AgentDays(ctx, p, "", t0, t0.Add(24*time.Hour))
	if err != nil || len(all) != 3 || all[2].AgentName != "other" || all[2].FailedCost != 0 {
		t.Fatalf("all agents: %+v %v", all, err)
	}
}
