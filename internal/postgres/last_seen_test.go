package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// TestLastSeenIsTheLatestCall: when each agent last used each tool and
// model (agent_last_seen, kept by the rollup merger, plus the tail) is the
// latest call's time, right after ingest, after the rollup merger ran and
// after a bulk load and its rebuild; a later batch of older calls moves
// nothing.
func TestLastSeenIsTheLatestCall(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	base := time.Now().UTC().Truncate(time.Second).Add(-2 * time.Hour)
	at := func(id, agent, model, tool string, minutes int) event.Event {
		e := call(p, id, 10)
		e.AgentName, e.Model, e.ToolName, e.Timestamp = agent, model, tool, base.Add(time.Duration(minutes)*time.Minute)
		return e
	}
	write := func(evs ...event.Event) {
		t.Helper()
		if _, err := db.Write(ctx, evs, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := map[[3]string]time.Time{
		{"a", "model", "m1"}: base.Add(30 * time.Minute), {"a", "tool", "search"}: base.Add(20 * time.Minute),
		{"a", "model", "m2"}: base.Add(10 * time.Minute), {"b", "model", "m1"}: base.Add(40 * time.Minute),
	}
	check := func(when string) {
		t.Helper()
		d, err := db.ReadCompliance(ctx, p, []string{"a", "b"}, base.Add(-time.Hour), base.Add(3*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.LastSeen) != len(want) {
			t.Fatalf("%s: last seen %v, want %v", when, d.LastSeen, want)
		}
		for k, w := range want {
			if got := d.LastSeen[k]; !got.Equal(w) {
				t.Errorf("%s: %v last seen %s, want %s", when, k, got, w)
			}
		}
	}
	write(at("1", "a", "m1", "", 5), at("2", "a", "m1", "search", 20), at("3", "a", "m2", "", 10), at("4", "b", "m1", "", 40))
	write(at("5", "a", "m1", "", 30))
	check("after ingest")
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := db.TailEvents(ctx, p); err != nil || n != 0 {
		t.Fatalf("%d events left in the tail (%v)", n, err)
	}
	check("merged")
	write(at("6", "a", "m1", "search", 1)) // older than what is known
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	check("after an older batch")
	// A bulk load is folded in by the rebuild, past which the tail no
	// longer holds it.
	if _, err := db.CopyEvents(ctx, []event.Event{at("7", "b", "m3", "grep", 50)}); err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildRollups(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n, err := db.TailEvents(ctx, p); err != nil || n != 0 {
		t.Fatalf("%d events left in the tail after the rebuild (%v)", n, err)
	}
	want[[3]string{"b", "model", "m3"}] = base.Add(50 * time.Minute)
	want[[3]string{"b", "tool", "grep"}] = base.Add(50 * time.Minute)
	check("after a bulk load and a rebuild")
}
