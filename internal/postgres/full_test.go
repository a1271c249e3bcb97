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

// checkFull reads /full's one-pass query for every range at the grain of
// its time series (raw 5-minute buckets for 1h, hourly for 24h and 7d,
// daily for 30d and 90d) and compares agents, models (limited to one, with
// the cost of all) and buckets with Go sums over the stored calls.
func checkFull(t *testing.T, db *postgres.DB, p string, events map[string]event.Event, now time.Time, when string) {
	t.Helper()
	for _, r := range analytics.AllRanges {
		w := analytics.Window(r, now)
		width := r.BucketWidth()
		grain := map[time.Duration]analytics.Grain{5 * time.Minute: analytics.Raw, time.Hour: analytics.Hour,
			24 * time.Hour: analytics.Day}[width]
		res, err := db.ReadFull(context.Background(), postgres.FullQuery{ProjectID: p,
			Segments: analytics.Decompose(w, grain), BucketWidth: width, Limit: 1})
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
