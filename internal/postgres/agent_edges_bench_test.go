package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/postgres"
)

// BenchmarkAgentEdges times the reads of a 24-hour and a 7-day window
// narrowed to one agent by user, session, workflow, tool and billing at
// three clocks of the day, two ways alternately, 40 times each: edge days
// (the way before migration 0045, when those per-agent rows were daily:
// the smaller part of each partial day raw, the rest as the day's rows
// less it) and edge hours the cheaper way round (per-agent hourly rows).
// The calls are bench-analytics' at its density (10 M calls in 90 days,
// 50 agents), eight days of them up to the clock, as BenchmarkEdgeHours
// lays them. The edge-day way reads a 24-hour window's calls all raw (it
// holds no whole day) and a 7-day window's first day the more the nearer
// the clock is to noon (its last day is the day's rows less the calls
// after now: none). `make bench-agent-edges`.
func BenchmarkAgentEdges(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	agent := benchdata.AgentName(7)
	fmt.Printf("load average %s\n", benchdata.LoadAverage())
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	for _, clock := range []time.Duration{43 * time.Minute, 6*time.Hour + 10*time.Minute, 12 * time.Hour} {
		p := newProject(b, db)
		now := day.Add(clock)
		seedUpTo(b, db, p, now, 8)
		var calls, all, models, others int64
		if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM events WHERE project_id = $1),
  count(*) FILTER (WHERE agent_name = ''), count(*) FILTER (WHERE agent_name <> '' AND dim = 'model'),
  count(*) FILTER (WHERE agent_name <> '' AND dim <> 'model') FROM rollup_hour WHERE project_id = $1`, p).
			Scan(&calls, &all, &models, &others); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("\n%d calls; rollup_hour rows: %d all agents, %d per-agent model, %d per-agent other (%.2f per call)\n",
			calls, all, models, others, float64(others)/float64(calls))
		for _, rng := range []analytics.Range{analytics.Range24h, analytics.Range7d} {
			w := analytics.Window(rng, now)
			days, hours := edgeDays(analytics.Decompose(w, analytics.Day), now), analytics.Decompose(w, analytics.Day).Complement(now, nil)
			rawDays, rawHours := agentRawCalls(b, db, p, agent, days), agentRawCalls(b, db, p, agent, hours)
			fmt.Printf("\n%s window of agent %s ending at %s: %d of its calls read raw by edge days, %d by edge hours\n"+
				"p50 / p95 ms, edge days | edge hours | ratio of p50s\n", rng, agent, now.Format("15:04"), rawDays, rawHours)
			for _, dim := range []string{"user", "session", "workflow", "tool", "billing"} {
				q := postgres.WindowQuery{ProjectID: p, Dim: dim, AgentName: agent, Limit: 10}
				byDays, byHours := timeTwoWays(b, db, q, days, hours)
				fmt.Printf("%-12s %6.1f / %6.1f | %6.1f / %6.1f | %.2f\n", "by/"+dim, ms(byDays[len(byDays)/2]),
					ms(byDays[len(byDays)*95/100]), ms(byHours[len(byHours)/2]), ms(byHours[len(byHours)*95/100]),
					float64(byHours[len(byHours)/2])/float64(byDays[len(byDays)/2]))
			}
		}
	}
}

// edgeDays is how a read narrowed to one agent took s (decomposed at day
// grain) before its per-agent rows were hourly: the edge hours raw, then
// each partial edge day either its part inside the window raw or the
// day's rows less the calls of its part outside, whichever held fewer
// hours of calls (the tail's part outside counts only up to now).
func edgeDays(s analytics.Segments, now time.Time) analytics.Segments {
	const day = 24 * time.Hour
	if !s.HourHead.Empty() {
		s.RawHead.End, s.HourHead = s.HourHead.End, analytics.Span{}
	}
	if !s.HourTail.Empty() {
		s.RawTail.Start, s.HourTail = s.HourTail.Start, analytics.Span{}
	}
	if s.Days.Empty() {
		return s
	}
	if d0, d1 := s.RawHead.End.Add(-day), s.RawHead.End; !s.RawHead.Empty() && d1.Equal(s.RawHead.Start.Add(day).Truncate(day)) &&
		s.RawHead.Start.Sub(d0) < d1.Sub(s.RawHead.Start) {
		s.MinusHead, s.RawHead, s.Days.Start = analytics.Span{Start: d0, End: s.RawHead.Start}, analytics.Span{Start: d0, End: d0}, d0
	}
	if d2 := s.RawTail.Start; !s.RawTail.Empty() && d2.Equal(s.RawTail.End.Truncate(day)) {
		d3 := d2.Add(day)
		if callsIn(s.RawTail.End, d3, now) < callsIn(d2, s.RawTail.End, now) {
			s.MinusTail, s.RawTail = analytics.Span{Start: s.RawTail.End, End: d3}, analytics.Span{Start: d2, End: d2}
			s.DaysTail = analytics.Span{Start: d2, End: d3}
		}
	}
	return s
}

// callsIn is how much of [start, end) lies before now, where calls can be.
func callsIn(start, end, now time.Time) time.Duration {
	if end.After(now) {
		end = now
	}
	return max(0, end.Sub(start))
}

// agentRawCalls counts agent's calls in s's raw and subtracted spans.
func agentRawCalls(b *testing.B, db *postgres.DB, p, agent string, s analytics.Segments) int64 {
	var n int64
	for _, sp := range []analytics.Span{s.RawHead, s.RawTail, s.MinusHead, s.MinusTail} {
		var c int64
		if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events
WHERE project_id = $1 AND agent_name = $2 AND ts >= $3 AND ts < $4`, p, agent, sp.Start, sp.End).Scan(&c); err != nil {
			b.Fatal(err)
		}
		n += c
	}
	return n
}

// timeTwoWays times q over a and over bs (timeAlternately), after checking
// that both read the same keys and sums.
func timeTwoWays(b *testing.B, db *postgres.DB, q postgres.WindowQuery, a, bs analytics.Segments) (ta, tb []time.Duration) {
	ctx := context.Background()
	var keys [2][]analytics.Keyed
	read := func(s analytics.Segments) ([]analytics.Keyed, error) {
		q.Segments = s
		res, err := db.ReadWindows(ctx, q)
		if err != nil {
			return nil, err
		}
		return res[0].Keys, nil
	}
	for i, s := range []analytics.Segments{a, bs} {
		var err error
		if keys[i], err = read(s); err != nil {
			b.Fatal(err)
		}
	}
	if !slices.Equal(keys[0], keys[1]) {
		b.Fatalf("by %s: edge days %+v, edge hours %+v", q.Dim, keys[0], keys[1])
	}
	return timeAlternately(b, func(s analytics.Segments) error { _, err := read(s); return err }, a, bs)
}
