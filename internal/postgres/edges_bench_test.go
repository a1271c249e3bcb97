package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// BenchmarkEdgeHours times the spend reads of a 24-hour window ending now,
// its partial edge hours read raw (analytics.Decompose) and the cheaper way
// round (Segments.Complement), alternately, 40 times each. The calls are
// bench-analytics' at its density (10 M calls in 90 days: about 4,600 an
// hour), four days of them arriving up to now, as under live traffic, so
// the raw way reads about an hour of calls at any minute: at minute 5 the
// cheaper way reads 5 minutes raw, at minute 30 thirty. Seeded by COPY and
// RebuildRollups; `make bench-edges`.
func BenchmarkEdgeHours(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	fmt.Printf("load average %s\n", benchdata.LoadAverage())
	for _, minute := range []int{5, 30} {
		p := newProject(b, db)
		if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
			b.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour + time.Duration(minute)*time.Minute)
		seedUpTo(b, db, p, now, 4)
		w := analytics.Window(analytics.Range24h, now)
		var head, tail int64
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE ts < $3), count(*) FILTER (WHERE ts >= $4)
FROM events WHERE project_id = $1 AND (ts >= $2 AND ts < $3 OR ts >= $4)`, p, w.Start.Truncate(time.Hour),
			w.Start.Truncate(time.Hour).Add(time.Hour), now.Truncate(time.Hour)).Scan(&head, &tail); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("\n24h window ending at minute %d (%s; %d calls in its first hour, %d in its last, up to now): "+
			"p50 / p95 ms, raw edges | cheaper way round | ratio of p50s\n", minute, now.Format("15:04"), head, tail)
		for _, r := range edgeReads(db, p, w) {
			raw, cut := timeEdges(b, r.read, analytics.Decompose(w, r.grain), now)
			fmt.Printf("%-22s %6.1f / %6.1f | %6.1f / %6.1f | %.2f\n", r.name, ms(raw[len(raw)/2]), ms(raw[len(raw)*95/100]),
				ms(cut[len(cut)/2]), ms(cut[len(cut)*95/100]), float64(cut[len(cut)/2])/float64(raw[len(raw)/2]))
		}
	}
}

// seedUpTo stores days days of calls at bench-analytics' density (10 M in
// 90 days) in project p up to now, by COPY and RebuildRollups, then
// VACUUM (ANALYZE). A day slot's sessions start in its first 21 hours:
// slots ending six hours after now put their quiet hours after now and 24
// hours before, away from a window's edges, and the calls after now are
// dropped.
func seedUpTo(b *testing.B, db *postgres.DB, p string, now time.Time, days int) {
	ctx := context.Background()
	cat := pricing.Builtin()
	spec := benchdata.Spec{Seed: 11, Events: days * 111_111, Days: days, Agents: 50, Users: 1000,
		Sessions: days * 445 / 4, Workflows: 30}
	for d := range spec.Days {
		evs := benchdata.Generate(spec, cat, p, now.Add(6*time.Hour), d).Events
		evs = slices.DeleteFunc(evs, func(e event.Event) bool { return !e.Timestamp.Before(now) })
		for i := 0; i < len(evs); i += 5000 {
			if _, err := db.CopyEvents(ctx, evs[i:min(i+5000, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.RebuildRollups(ctx, p); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "VACUUM (ANALYZE)"); err != nil {
		b.Fatal(err)
	}
}

// edgeRead is one spend read of a window decomposed at grain.
type edgeRead struct {
	name  string
	grain analytics.Grain
	read  func(analytics.Segments) error
}

// edgeReads are the reads the 24-hour spend reports make over all agents:
// the keys of each dimension (ten of them, as a report's limit), the hourly
// series, /full in one pass, and a tag's: a filter by model and by value.
func edgeReads(db *postgres.DB, p string, w analytics.Span) []edgeRead {
	ctx := context.Background()
	window := func(q postgres.WindowQuery) func(analytics.Segments) error {
		return func(s analytics.Segments) error {
			q.Segments = s
			_, err := db.ReadWindows(ctx, q)
			return err
		}
	}
	var out []edgeRead
	for _, dim := range []string{"agent", "model", "user", "session", "workflow", "tool", "billing"} {
		grain := analytics.Day
		if dim == "user" {
			grain = analytics.Week
		}
		out = append(out, edgeRead{"by/" + dim, grain, window(postgres.WindowQuery{ProjectID: p, Dim: dim, Limit: 10})})
	}
	return append(out,
		edgeRead{"timeseries", analytics.Hour, window(postgres.WindowQuery{ProjectID: p, Dim: "agent", BucketWidth: time.Hour})},
		edgeRead{"full", analytics.Hour, func(s analytics.Segments) error {
			_, err := db.ReadFull(ctx, postgres.FullQuery{ProjectID: p, Segments: s, BucketWidth: time.Hour, Limit: 10})
			return err
		}},
		edgeRead{"by/model ?tag.team", analytics.Day, window(postgres.WindowQuery{ProjectID: p, Dim: "model", Limit: 10,
			Tag: "team", TagValue: benchdata.TeamName(1)})},
		edgeRead{"by/tag.team", analytics.Day, window(postgres.WindowQuery{ProjectID: p, Dim: "tag.team", Limit: 10})})
}

// timeEdges times read over s raw and complemented at now
// (timeAlternately).
func timeEdges(b *testing.B, read func(analytics.Segments) error, s analytics.Segments, now time.Time) (raw, cut []time.Duration) {
	c := s.Complement(now, nil)
	if c == s {
		b.Fatalf("%+v at %s: nothing to complement", s, now)
	}
	return timeAlternately(b, read, s, c)
}

// timeAlternately times read over x and over y, alternately after three
// warm-ups each, and returns both sorted.
func timeAlternately(b *testing.B, read func(analytics.Segments) error, x, y analytics.Segments) (tx, ty []time.Duration) {
	for i := range 43 {
		for j, seg := range []analytics.Segments{x, y} {
			start := time.Now()
			if err := read(seg); err != nil {
				b.Fatal(err)
			}
			if i < 3 {
				continue
			}
			if j == 0 {
				tx = append(tx, time.Since(start))
			} else {
				ty = append(ty, time.Since(start))
			}
		}
	}
	slices.Sort(tx)
	slices.Sort(ty)
	return tx, ty
}
