package postgres_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// checkFull reads /full for every range as the server does: the time
// series at its grain (raw 5-minute buckets for 1h, hourly for 24h and 7d,
// daily for 30d and 90d), the keys at day grain (raw for 1h), so 7d takes
// two statements and 30d one pass; it compares agents, models (limited to one, with
// the cost of all) and buckets with Go sums over the stored calls.
func checkFull(t *testing.T, db *postgres.DB, p string, events map[string]event.Event, now time.Time, when string,
	edges edgesFor) {
	t.Helper()
	for _, r := range analytics.AllRanges {
		w := analytics.Window(r, now)
		width := r.BucketWidth()
		grain := map[time.Duration]analytics.Grain{5 * time.Minute: analytics.Raw, time.Hour: analytics.Hour,
			24 * time.Hour: analytics.Day}[width]
		keyGrain := analytics.Day
		if r == analytics.Range1h {
			keyGrain = analytics.Raw
		}
		res, err := db.ReadFull(context.Background(), postgres.FullQuery{ProjectID: p,
			Segments:    edges(postgres.WindowQuery{Dim: "agent", Segments: analytics.Decompose(w, grain)}).Segments,
			KeySegments: edges(postgres.WindowQuery{Dim: "agent", Segments: analytics.Decompose(w, keyGrain)}).Segments,
			BucketWidth: width, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		agents, models, buckets := map[string]analytics.Sums{}, map[string]analytics.Sums{}, map[time.Time]analytics.Sums{}
		var modelCost int64
		for _, e := range events {
			if e.Timestamp.Before(w.Start) || !e.Timestamp.Before(w.End) {
				continue
			}
			s, _ := callSums(e)
			a, m := agents[e.AgentName], models[e.Model]
			a.Add(s)
			m.Add(s)
			agents[e.AgentName], models[e.Model] = a, m
			b := e.Timestamp.Truncate(width).UTC()
			v := buckets[b]
			v.Add(s)
			buckets[b] = v
			modelCost += e.CostNano
		}
		gotAgents := map[string]analytics.Sums{}
		for i, a := range res.Agents {
			gotAgents[a.Key] = a.Sums
			if i > 0 && res.Agents[i-1].CostNano < a.CostNano {
				t.Fatalf("%s: %s agents not sorted by cost: %+v", when, r, res.Agents)
			}
		}
		gotBuckets := map[time.Time]analytics.Sums{}
		for _, pt := range res.Points {
			gotBuckets[pt.Bucket] = pt.Sums
		}
		if !reflect.DeepEqual(gotAgents, agents) || !reflect.DeepEqual(gotBuckets, buckets) {
			t.Fatalf("%s: %s full:\n agents %+v\n  want %+v\nbuckets %+v\n   want %+v", when, r, gotAgents, agents,
				gotBuckets, buckets)
		}
		top := analytics.Keyed{}
		for k, s := range models {
			if s.CostNano > top.CostNano || (s.CostNano == top.CostNano && (top.Key == "" || k < top.Key)) {
				top = analytics.Keyed{Key: k, Sums: s}
			}
		}
		if len(models) == 0 {
			if len(res.Models.Keys) != 0 || res.Models.AllCostNano != 0 {
				t.Fatalf("%s: %s full: models %+v over no calls", when, r, res.Models)
			}
			continue
		}
		if !reflect.DeepEqual(res.Models.Keys, []analytics.Keyed{top}) || res.Models.AllCostNano != modelCost {
			t.Fatalf("%s: %s full models: %+v (all %d), want %+v (all %d)", when, r, res.Models.Keys,
				res.Models.AllCostNano, top, modelCost)
		}
	}
}

// checkSessionTop reads the top sessions (the session read of rollup_session,
// used when limited, over all agents, with whole days) for several limits
// and ranges, and compares them with the first keys of a Go sum over the
// stored calls sorted by cost, then key.
func checkSessionTop(t *testing.T, db *postgres.DB, p string, events map[string]event.Event, now time.Time, when string,
	edges edgesFor) {
	t.Helper()
	// Besides the ranges, windows starting among the calls, so sessions
	// cross the first midnight too.
	for _, length := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 90 * 24 * time.Hour, 50 * time.Hour,
		61 * time.Hour} {
		for _, off := range []time.Duration{0, 13 * time.Hour, 37 * time.Hour} {
			w := analytics.Span{Start: now.Add(-off - length), End: now.Add(-off)}
			sums := map[string]analytics.Sums{}
			for _, e := range events {
				if e.SessionID == "" || e.Timestamp.Before(w.Start) || !e.Timestamp.Before(w.End) {
					continue
				}
				s, _ := callSums(e)
				v := sums[e.SessionID]
				v.Add(s)
				sums[e.SessionID] = v
			}
			var all []analytics.Keyed
			for k, s := range sums {
				all = append(all, analytics.Keyed{Key: k, Sums: s})
			}
			analytics.SortByCost(all)
			for _, limit := range []int{1, 3, 100} {
				res, err := db.ReadWindows(context.Background(), edges(postgres.WindowQuery{ProjectID: p, Dim: "session",
					Segments: analytics.Decompose(w, analytics.Day), Limit: limit}))
				if err != nil {
					t.Fatal(err)
				}
				want := all[:min(limit, len(all))]
				if len(want) == 0 && len(res[0].Keys) == 0 {
					continue // a window before the calls
				}
				if !reflect.DeepEqual(res[0].Keys, want) {
					t.Fatalf("%s: %s ending %s before now, top %d sessions:\n got %+v\nwant %+v", when, length, off, limit,
						res[0].Keys, want)
				}
			}
		}
	}
}
