package postgres_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// expiryTimes are the time column of each table the rollup expiry
// deletes from, and whether a row is wholly before the cutoff ($2).
var expiryTimes = map[string]string{
	"rollup_hour": "bucket < $2", "rollup_day": "bucket < $2", "rollup_week": "bucket + interval '7 days' <= $2",
	"rollup_tag_hour": "bucket < $2", "rollup_tag_day": "bucket < $2", "agent_key_hour": "bucket < $2",
	"rollup_session": "last_hour < $2", "run_day": "bucket < $2", "run_step_day": "bucket < $2",
	"run_tool_day": "bucket < $2", "run_tool_all_day": "bucket < $2", "runs": "first_ts < $2",
	"run_steps":   "trace_id LIKE 'old%' AND $2::timestamptz IS NOT NULL",
	"run_tools":   "trace_id LIKE 'old%' AND $2::timestamptz IS NOT NULL",
	"outcomes":    "trace_id LIKE 'old%' AND $2::timestamptz IS NOT NULL",
	"spend_month": "month < date_trunc('month', $2::timestamptz AT TIME ZONE 'UTC')::date",
}

// expiryCounts counts a project's rows of every table, those before the
// cutoff and the others.
func expiryCounts(t *testing.T, db *postgres.DB, project string, cutoff time.Time) (old, young map[string]int) {
	t.Helper()
	old, young = map[string]int{}, map[string]int{}
	for table, before := range expiryTimes {
		var o, y int
		if err := db.Pool.QueryRow(context.Background(), fmt.Sprintf(`SELECT count(*) FILTER (WHERE %[2]s),
  count(*) FILTER (WHERE NOT (%[2]s)) FROM %[1]s WHERE project_id = $1`, table, before), project, cutoff).Scan(&o, &y); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		old[table], young[table] = o, y
	}
	return old, young
}

// expiryCalls are calls of one project at each age, traced, with steps,
// tools, users and sessions, so that every kind of rollup row exists; the
// oldest day has 6,000 users (more than one chunk of each user table).
func expiryCalls(p string, now time.Time, ages ...time.Duration) []event.Event {
	var out []event.Event
	for i, age := range ages {
		kind := "young"
		if age > 40*24*time.Hour {
			kind = "old"
		}
		for j := range 3 {
			e := callAt(p, fmt.Sprintf("%s-%d-%d", kind, i, j), now.Add(-age+time.Duration(j)*time.Minute))
			e.CostNano, e.Priced = 1000+int64(i*10+j), true
			e.TraceID, e.SpanID = fmt.Sprintf("%s-run-%d", kind, i), fmt.Sprintf("s%d", j)
			e.Workflow, e.StepName, e.ToolName = "wf", fmt.Sprintf("step-%d", j), "tool"
			e.UserID, e.SessionID = fmt.Sprintf("u%d", j), fmt.Sprintf("sess-%d", i)
			out = append(out, e)
		}
	}
	for j := range 6000 {
		e := callAt(p, fmt.Sprintf("many-%d", j), now.Add(-ages[0]))
		e.CostNano, e.Priced, e.UserID = 7, true, fmt.Sprintf("many-user-%d", j)
		out = append(out, e)
	}
	return out
}

func TestRollupExpiryDeletesOnlyTheDaysBeforeTheCutoff(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	short, other := newProject(t, db), newProject(t, db)
	now := time.Now().UTC()
	ages := []time.Duration{400 * 24 * time.Hour, 60 * 24 * time.Hour, 45 * 24 * time.Hour, 35 * 24 * time.Hour, 2 * time.Hour}
	for _, p := range []string{short, other} {
		calls := expiryCalls(p, now, ages...)
		for len(calls) > 0 {
			n := min(len(calls), 1000)
			if _, err := db.Write(ctx, calls[:n], nil); err != nil {
				t.Fatal(err)
			}
			calls = calls[n:]
		}
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO outcomes (project_id, trace_id, success) VALUES ($1, 'old-run-1', true), ($1, 'young-run-3', true)`,
		short); err != nil {
		t.Fatal(err)
	}
	for merge(t, db).Groups > 0 {
	}
	mergeRuns(t, db)

	raw, rollup := 30, 40
	if err := db.PutRetention(ctx, short, &raw, &rollup); err != nil {
		t.Fatal(err)
	}
	ret, err := db.Retention(ctx, short)
	if err != nil {
		t.Fatal(err)
	}
	cutoff := ret.RollupExpiredBefore(now)
	if want := now.AddDate(0, 0, -40).Truncate(24 * time.Hour); cutoff == nil || !cutoff.Equal(want) {
		t.Fatalf("rollup cutoff %v, want %v", cutoff, want)
	}
	oldBefore, youngBefore := expiryCounts(t, db, short, *cutoff)
	otherOld, otherYoung := expiryCounts(t, db, other, *cutoff)
	for _, table := range []string{"rollup_hour", "rollup_day", "rollup_week", "agent_key_hour", "rollup_session", "run_day",
		"run_step_day", "run_tool_day", "run_tool_all_day", "runs", "run_steps", "run_tools", "outcomes", "spend_month"} {
		if oldBefore[table] == 0 {
			t.Fatalf("no row of %s before the cutoff to expire: the test sees nothing", table)
		}
	}
	within := func(p string) analytics.Sums {
		w := analytics.Span{Start: *cutoff, End: now}
		res, err := db.ReadWindows(ctx, postgres.WindowQuery{ProjectID: p, Dim: "agent", Segments: analytics.Decompose(w, analytics.Day)},
			postgres.WindowQuery{ProjectID: p, Dim: "user", Segments: analytics.Decompose(w, analytics.Week)})
		if err != nil {
			t.Fatal(err)
		}
		return analytics.Total(append(res[0].Keys, res[1].Keys...))
	}
	reportBefore := within(short)

	t0 := time.Now()
	exp, err := db.ExpireRollups(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("expired %+v in %s", exp, time.Since(t0))
	if exp.Projects != 1 || exp.Days < 3 || exp.Rows == 0 {
		t.Fatalf("expiry: %+v, want the one project with a retention, 3 days or more", exp)
	}
	oldAfter, youngAfter := expiryCounts(t, db, short, *cutoff)
	for table, n := range oldAfter {
		if n != 0 {
			t.Errorf("%s keeps %d rows before the cutoff (of %d)", table, n, oldBefore[table])
		}
	}
	if !maps.Equal(youngAfter, youngBefore) {
		t.Errorf("rows after the cutoff changed:\nbefore %v\n after %v", youngBefore, youngAfter)
	}
	if o, y := expiryCounts(t, db, other, *cutoff); !maps.Equal(o, otherOld) || !maps.Equal(y, otherYoung) {
		t.Errorf("the other project's rows changed:\nbefore %v %v\n after %v %v", otherOld, otherYoung, o, y)
	}
	if after := within(short); after != reportBefore {
		t.Errorf("the report within the retention changed:\nbefore %+v\n after %+v", reportBefore, after)
	}
	var month int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM spend_month WHERE project_id = $1 AND month = $2::date`, short,
		postgres.MonthStart(now)).Scan(&month); err != nil || month != 1 {
		t.Errorf("the month's counter: %d rows (%v)", month, err)
	}
	if ret, err = db.Retention(ctx, short); err != nil {
		t.Fatal(err)
	}
	if gone := ret.RollupExpiredBefore(now); gone == nil || !gone.Equal(*cutoff) {
		t.Errorf("expired before %v after the run, want %v", gone, *cutoff)
	}
	if again, err := db.ExpireRollups(ctx, now); err != nil || again.Rows != 0 {
		t.Errorf("a second run: %+v %v, want nothing left to delete", again, err)
	}
}

// A rollup retention shorter than the raw one, or MinRollupDays, is
// applied as the longer: rollups outlive the calls and what the forecast
// reads.
func TestRollupCutoffIsNeverShorterThanTheCalls(t *testing.T) {
	now := time.Date(2026, 11, 29, 8, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		raw, rollup, defRaw, defRollup int
		want                           time.Time
		kept                           bool
	}{
		{raw: 30, rollup: 40, want: time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)},
		{raw: 90, rollup: 40, want: time.Date(2026, 8, 31, 0, 0, 0, 0, time.UTC)},
		{raw: 1, rollup: 1, want: time.Date(2026, 10, 29, 0, 0, 0, 0, time.UTC)},
		{defRollup: 40, kept: true}, // raw kept forever
		{raw: 30, kept: true},       // rollups kept forever
		{defRaw: 30, defRollup: 60, want: time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)},
	} {
		r := postgres.Retention{DefaultRawDays: c.defRaw, DefaultRollupDays: c.defRollup}
		if c.raw > 0 {
			r.RawDays = &c.raw
		}
		if c.rollup > 0 {
			r.RollupDays = &c.rollup
		}
		got := r.RollupExpiredBefore(now)
		if c.kept != (got == nil) || (got != nil && !got.Equal(c.want)) {
			t.Errorf("%+v: %v, want %v (kept %v)", c, got, c.want, c.kept)
		}
	}
}
