package postgres_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// TestAgentFactsCountKeysInEveryPartOfTheWindow checks the agent view's
// distinct developers and sessions, and first and last call, against a
// count over the stored events, for windows that cut hours and days at
// odd minutes (raw partial hours, hourly keys, daily rows), lie inside one
// day or one hour, with part of the calls merged and the rest in the tail.
func TestAgentFactsCountKeysInEveryPartOfTheWindow(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	rng := rand.New(rand.NewPCG(12, 19))
	t0 := time.Date(2026, 6, 1, 21, 0, 0, 0, time.UTC)
	kept := map[string]event.Event{}
	write := func(n int) {
		evs := randomEvents(rng, p, n, t0)
		for i := range evs {
			evs[i].EventID = evs[i].EventID + "-" + evs[i].Timestamp.Format(time.RFC3339Nano)
			// A user per agent and hour, so every part holds keys no
			// other part has.
			if evs[i].UserID != "" {
				evs[i].UserID += evs[i].Timestamp.Format("-02T15")
			}
		}
		if _, err := db.Write(ctx, evs, nil); err != nil {
			t.Fatal(err)
		}
		keepFirst(kept, evs)
	}
	write(400)
	merge(t, db)
	write(150) // the tail

	windows := append(agentWindows(t0), [2]time.Time{t0.Add(3 * time.Hour), t0.Add(27 * time.Hour)}) // exactly one day
	agents := []string{"a1", "a2", "a3"}
	for _, w := range windows {
		want := expectAgentFacts(kept, w[0], w[1])
		got, err := db.ReadAgentFacts(ctx, p, "", agents, w[0], w[1])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%v: %d agents, want %d", w, len(got), len(want))
		}
		for a, f := range want {
			if got[a] != f {
				t.Errorf("%v agent %s: got %+v, want %+v", w, a, got[a], f)
			}
			one, err := db.ReadAgentFacts(ctx, p, a, []string{a}, w[0], w[1])
			if err != nil {
				t.Fatal(err)
			}
			if one[a] != f {
				t.Errorf("%v agent %s alone: got %+v, want %+v", w, a, one[a], f)
			}
		}
	}
}

// agentWindows are windows over calls of randomEvents from t0 (an hour
// boundary, 21:00 UTC) that cut hours and days at odd minutes (raw partial
// hours, hourly rows, daily rows) or lie inside one day or one hour.
func agentWindows(t0 time.Time) [][2]time.Time {
	return [][2]time.Time{
		{t0.Add(17 * time.Minute), t0.Add(70*time.Hour + 41*time.Minute)},              // partial hours and days
		{t0.Add(3 * time.Hour), t0.Add(51 * time.Hour)},                                // whole hours, one whole day
		{t0.Add(4*time.Hour + 5*time.Minute), t0.Add(9*time.Hour + 1*time.Minute)},     // inside one day
		{t0.Add(26*time.Hour + 10*time.Minute), t0.Add(26*time.Hour + 50*time.Minute)}, // inside one hour
	}
}

// expectAgentFacts counts each agent's facts over [from, to) in Go.
func expectAgentFacts(events map[string]event.Event, from, to time.Time) map[string]postgres.AgentFacts {
	users, sessions := map[[2]string]bool{}, map[[2]string]bool{}
	out := map[string]postgres.AgentFacts{}
	for _, e := range events {
		if e.Timestamp.Before(from) || !e.Timestamp.Before(to) {
			continue
		}
		f, seen := out[e.AgentName]
		ts := e.Timestamp.UTC().Truncate(time.Microsecond)
		if !seen || ts.Before(f.FirstSeen) {
			f.FirstSeen = ts
		}
		if !seen || ts.After(f.LastSeen) {
			f.LastSeen = ts
		}
		if e.UserID != "" && !users[[2]string{e.AgentName, e.UserID}] {
			users[[2]string{e.AgentName, e.UserID}] = true
			f.Developers++
		}
		if e.SessionID != "" && !sessions[[2]string{e.AgentName, e.SessionID}] {
			sessions[[2]string{e.AgentName, e.SessionID}] = true
			f.Sessions++
		}
		out[e.AgentName] = f
	}
	return out
}
