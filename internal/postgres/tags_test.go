package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// tagCases are the metadata a call may carry and the value its team tag
// counts under.
var tagCases = []struct{ meta, team string }{
	{`{"team":"payments"}`, "payments"},
	{`{"team":"search","env":"prod"}`, "search"},
	{`{"team":7}`, "7"},
	{`{"env":"prod"}`, postgres.TagNone},
	{``, postgres.TagNone},
	{`{"team":null}`, postgres.TagNone},
	{`{"team":"(other)"}`, postgres.TagInvalid},
	{`{"team":""}`, postgres.TagInvalid},
	{`{"team":{"a":1}}`, postgres.TagInvalid},
}

// taggedEvents are randomEvents each carrying one of tagCases, with the
// team value each counts under (by event id: the first copy wins).
func taggedEvents(rng *rand.Rand, project string, n int, t0 time.Time, teams map[string]string) []event.Event {
	out := randomEvents(rng, project, n, t0)
	for i := range out {
		c := tagCases[rng.IntN(len(tagCases))]
		out[i].Metadata = []byte(c.meta)
		if _, dup := teams[out[i].EventID]; !dup {
			teams[out[i].EventID] = c.team
		}
	}
	return out
}

// expectByTag sums the stored events per key of dim ("tag" for the team
// value) among those whose team is only ("" for all) and whose time is in
// [from, to).
func expectByTag(events map[string]event.Event, teams map[string]string, dim, only string, from, to time.Time) map[string]analytics.Sums {
	out := map[string]analytics.Sums{}
	for id, e := range events {
		if e.Timestamp.Before(from) || !e.Timestamp.Before(to) || (only != "" && teams[id] != only) {
			continue
		}
		s, billing := callSums(e)
		key := map[string]string{"tag": teams[id], "model": e.Model, "agent": e.AgentName, "billing": billing,
			"user": e.UserID, "session": e.SessionID, "workflow": e.Workflow, "tool": e.ToolName}[dim]
		if key == "" {
			continue
		}
		o := out[key]
		o.Add(s)
		out[key] = o
	}
	return out
}

// readTagWindow reads q over [from, to) (day grain) as sums per key, its
// partial edge hours raw and, in the same snapshot, the cheaper way round
// with the clock at to (WindowQuery.ComplementEdges), and fails unless
// both agree.
func readTagWindow(t *testing.T, db *postgres.DB, q postgres.WindowQuery, from, to time.Time) map[string]analytics.Sums {
	t.Helper()
	q.Segments = analytics.Decompose(analytics.Span{Start: from, End: to}, analytics.Day)
	c := q.ComplementEdges(to, nil)
	res, err := db.ReadWindows(context.Background(), q, c)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	out := map[string]analytics.Sums{}
	for _, k := range res[0].Keys {
		out[k.Key] = k.Sums
	}
	if !reflect.DeepEqual(res[0].Keys, res[1].Keys) {
		t.Fatalf("%+v over [%s, %s): edges raw\n%+v\nedges complemented\n%+v", q, from, to, res[0].Keys, res[1].Keys)
	}
	return out
}

// checkTagReads compares by/tag.team and a tag filter by each dimension
// with the Go sums, over whole hours and over windows with partial edge
// hours (both read each way: readTagWindow).
func checkTagReads(t *testing.T, db *postgres.DB, when, p string, events map[string]event.Event, teams map[string]string, t0 time.Time) {
	t.Helper()
	for _, w := range [][2]time.Time{{t0.Add(-2 * time.Hour), t0.Add(80 * time.Hour)},
		{t0.Add(90 * time.Minute), t0.Add(50*time.Hour + 17*time.Minute)},
		{t0.Add(3*time.Hour + 10*time.Minute), t0.Add(40*time.Hour + 50*time.Minute)}} {
		got := readTagWindow(t, db, postgres.WindowQuery{ProjectID: p, Dim: "tag.team"}, w[0], w[1])
		compareKeyed(t, fmt.Sprintf("%s: by/tag.team over %v", when, w), got, expectByTag(events, teams, "tag", "", w[0], w[1]))
		for _, dim := range []string{"model", "agent", "billing", "user", "session", "workflow", "tool"} {
			for _, team := range []string{"payments", "7", postgres.TagNone, postgres.TagInvalid} {
				got := readTagWindow(t, db, postgres.WindowQuery{ProjectID: p, Dim: dim, Tag: "team", TagValue: team}, w[0], w[1])
				compareKeyed(t, fmt.Sprintf("%s: by/%s tag.team=%s over %v", when, dim, team, w), got,
					expectByTag(events, teams, dim, team, w[0], w[1]))
			}
		}
	}
}

// compareKeyed fails when got and want differ.
func compareKeyed(t *testing.T, when string, got, want map[string]analytics.Sums) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Fatalf("%s: key %q\n got %+v\nwant %+v", when, k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Fatalf("%s: unexpected key %q: %+v", when, k, got[k])
		}
	}
}

// keepFirst adds the events not yet stored (by id) to kept.
func keepFirst(kept map[string]event.Event, es []event.Event) {
	for _, e := range es {
		if _, dup := kept[e.EventID]; !dup {
			kept[e.EventID] = e
		}
	}
}

// TestTagReportsEqualTheEvents declares a tag before any call, then checks
// the tag reads (by/tag.team, a tag filter by every dimension) against Go
// sums over the calls: with calls in the tail, after merges, and after
// RebuildRollups.
func TestTagReportsEqualTheEvents(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 5, 30, 22, 0, 0, 0, time.UTC)
	kept, teams := map[string]event.Event{}, map[string]string{}
	for range 3 {
		es := taggedEvents(rng, p, 150, t0, teams)
		if _, err := db.Write(ctx, es, nil); err != nil {
			t.Fatal(err)
		}
		keepFirst(kept, es)
		merge(t, db)
	}
	checkTagReads(t, db, "merged", p, kept, teams, t0)
	// A batch in the tail (not merged) counts too.
	es := taggedEvents(rng, p, 100, t0, teams)
	if _, err := db.Write(ctx, es, nil); err != nil {
		t.Fatal(err)
	}
	keepFirst(kept, es)
	checkTagReads(t, db, "with a tail", p, kept, teams, t0)
	merge(t, db)
	if _, err := db.Pool.Exec(ctx, `DELETE FROM rollup_tag_day WHERE project_id = $1`, p); err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildRollups(ctx, p); err != nil {
		t.Fatal(err)
	}
	checkTagReads(t, db, "after RebuildRollups", p, kept, teams, t0)
	keys, err := db.Tags(ctx, p)
	if err != nil || len(keys) != 1 || keys[0].Key != "team" || keys[0].Backfilling || keys[0].Values != 3 {
		t.Fatalf("tags: %+v %v; want team with 3 values (payments, search, 7)", keys, err)
	}
	// Deleting the project removes its tag rows.
	if _, err := db.Pool.Exec(ctx, `DELETE FROM projects WHERE id = $1`, p); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM rollup_tag_hour WHERE project_id = $1) +
		(SELECT count(*) FROM rollup_tag_day WHERE project_id = $1) + (SELECT count(*) FROM tag_values WHERE project_id = $1)
		+ (SELECT count(*) FROM project_tags WHERE project_id = $1)`, p).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d tag rows outlive their project (%v)", rows, err)
	}
}

// TestTagLateDeclarationBackfills stores calls, declares the tag, and
// back-fills in small chunks while new calls are merged: the reads are
// exact once the back-fill is done, and a call is never counted twice.
func TestTagLateDeclarationBackfills(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	rng := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2026, 6, 10, 3, 0, 0, 0, time.UTC)
	kept, teams := map[string]event.Event{}, map[string]string{}
	es := taggedEvents(rng, p, 300, t0, teams)
	if _, err := db.Write(ctx, es, nil); err != nil {
		t.Fatal(err)
	}
	keepFirst(kept, es)
	merge(t, db)
	// Some calls are still in the tail at the declaration.
	es = taggedEvents(rng, p, 100, t0, teams)
	if _, err := db.Write(ctx, es, nil); err != nil {
		t.Fatal(err)
	}
	keepFirst(kept, es)
	var queued []string
	db.EnqueueTagBackfill = func(_ context.Context, _ pgx.Tx, project string) error {
		queued = append(queued, project)
		return nil
	}
	db.TagBackfillChunk = 37
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	if len(queued) != 1 || queued[0] != p {
		t.Fatalf("queued back-fills %v, want one of %s", queued, p)
	}
	if keys, err := db.Tags(ctx, p); err != nil || len(keys) != 1 || !keys[0].Backfilling {
		t.Fatalf("tags after a late declaration: %+v %v; want team back-filling", keys, err)
	}
	// Back-fill steps interleaved with new calls and merges.
	steps := 0
	for done := false; !done; steps++ {
		es := taggedEvents(rng, p, 20, t0, teams)
		if _, err := db.Write(ctx, es, nil); err != nil {
			t.Fatal(err)
		}
		keepFirst(kept, es)
		merge(t, db)
		var err error
		if done, err = db.BackfillTags(ctx, p, time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if steps < 3 {
		t.Fatalf("the back-fill took %d steps of 37 calls: not chunked", steps)
	}
	if keys, err := db.Tags(ctx, p); err != nil || len(keys) != 1 || keys[0].Backfilling {
		t.Fatalf("tags after the back-fill: %+v %v", keys, err)
	}
	checkTagReads(t, db, "after a late declaration", p, kept, teams, t0)
	// Removing the key removes its rollups; declaring it again back-fills
	// everything at once (no queue).
	db.EnqueueTagBackfill = nil
	if err := db.PutTags(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM rollup_tag_day WHERE project_id = $1) +
		(SELECT count(*) FROM tag_values WHERE project_id = $1)`, p).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d tag rows after removing the key (%v)", rows, err)
	}
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	checkTagReads(t, db, "after declaring again", p, kept, teams, t0)
}

// TestTagRepriceKeepsTagRollupsExact re-prices tagged calls, merged and in
// the tail, and checks the tag reads against the calls afterwards.
func TestTagRepriceKeepsTagRollupsExact(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	teams := map[string]string{"unknown": "payments", "cached": "search", "unknown-sub": "payments"}
	meta := func(team string) func(*event.Event) {
		return func(e *event.Event) { e.Metadata = []byte(`{"team":"` + team + `"}`) }
	}
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "unknown", "acme-llm-9000", t0.Add(time.Hour), 1000, 500, meta("payments")),
		stored(p, "cached", "claude-sonnet-4-5", t0.Add(2*time.Hour), 1000, 100, meta("search")),
	}, nil); err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "unknown-sub", "acme-llm-9000", t0.Add(26*time.Hour), 1000, 500, meta("payments")),
	}, nil); err != nil {
		t.Fatal(err)
	}
	before := readTagWindow(t, db, postgres.WindowQuery{ProjectID: p, Dim: "tag.team"}, t0, t0.Add(48*time.Hour))
	if res, err := db.Reprice(ctx, acmeCatalogue(), postgres.RepriceFilter{Start: t0, End: t0.Add(48 * time.Hour)}, false); err != nil || res.Events != 3 {
		t.Fatalf("reprice: %+v %v", res, err)
	}
	events := byID(t, db, p)
	after := expectByTag(events, teams, "tag", "", t0, t0.Add(48*time.Hour))
	if before["payments"].CostNano == after["payments"].CostNano {
		t.Fatalf("re-pricing changed no tagged cost: %+v", after)
	}
	compareKeyed(t, "after reprice", readTagWindow(t, db, postgres.WindowQuery{ProjectID: p, Dim: "tag.team"}, t0, t0.Add(48*time.Hour)), after)
	merge(t, db)
	compareKeyed(t, "after reprice and merge", readTagWindow(t, db, postgres.WindowQuery{ProjectID: p, Dim: "tag.team"}, t0, t0.Add(48*time.Hour)), after)
	compareKeyed(t, "by model for payments after reprice", readTagWindow(t, db,
		postgres.WindowQuery{ProjectID: p, Dim: "model", Tag: "team", TagValue: "payments"}, t0, t0.Add(48*time.Hour)),
		expectByTag(events, teams, "model", "payments", t0, t0.Add(48*time.Hour)))
}

// TestTagValuesPastTheBoundCountAsOther stores calls with more distinct
// values than a key may hold: every call is stored and counted, the excess
// under (other), and the key's counters report it.
func TestTagValuesPastTheBoundCountAsOther(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	n := postgres.MaxTagValues + 7
	es := make([]event.Event, n)
	for i := range es {
		es[i] = stored(p, fmt.Sprintf("c%d", i), "m1", t0.Add(time.Duration(i)*time.Second), 10, 10,
			func(e *event.Event) { e.Metadata = fmt.Appendf(nil, `{"team":"t%04d"}`, i) })
	}
	if res, err := db.Write(ctx, es, nil); err != nil || res.Stored != int64(n) {
		t.Fatalf("write: %+v %v; want all %d stored", res, err, n)
	}
	merge(t, db)
	got := readTagWindow(t, db, postgres.WindowQuery{ProjectID: p, Dim: "tag.team"}, t0, t0.Add(24*time.Hour))
	if len(got) != postgres.MaxTagValues+1 || got[postgres.TagOther].Calls != 7 {
		t.Fatalf("%d keys, (other) %+v; want %d values and 7 calls under (other)", len(got), got[postgres.TagOther], postgres.MaxTagValues)
	}
	keys, err := db.Tags(ctx, p)
	if err != nil || len(keys) != 1 || keys[0].Values != postgres.MaxTagValues || keys[0].OverflowCalls != 7 {
		t.Fatalf("tags: %+v %v", keys, err)
	}
}

// More calls than a back-fill chunk share one timestamp (a back-fill
// stamped to the second): the chunk takes them all and the back-fill
// ends, each call counted once.
func TestTagBackfillPassesCallsSharingATimestamp(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Date(2026, 6, 10, 3, 0, 0, 0, time.UTC)
	es := make([]event.Event, 30)
	for i := range es {
		es[i] = callAt(p, fmt.Sprintf("same-%d", i), t0)
		if i >= 20 {
			es[i].Timestamp = t0.Add(time.Second)
		}
	}
	if _, err := db.Write(ctx, es, nil); err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	db.EnqueueTagBackfill = func(context.Context, pgx.Tx, string) error { return nil }
	db.TagBackfillChunk = 7
	if err := db.PutTags(ctx, p, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for done := false; !done; steps++ {
		if steps > 10 {
			t.Fatal("the back-fill does not pass calls sharing a timestamp")
		}
		var err error
		if done, err = db.BackfillTags(ctx, p, time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::int FROM rollup_tag_day
		WHERE project_id = $1 AND tag = 'team' AND dim = 'tag'`, p).Scan(&n); err != nil || n != 30 {
		t.Fatalf("the back-fill counted %d calls, want 30 (%v)", n, err)
	}
}

// TestTagValueRule: llmcost_tag_value (migration 0044) gives every input
// the value migration 0034's pattern gave it, at the length bounds, with
// multibyte characters, control characters and the reserved '(' first.
func TestTagValueRule(t *testing.T) {
	db := openDB(t)
	long := strings.Repeat("é", 63)
	cases := map[string]string{
		`"payments"`: "payments", `7`: "7", `1.5`: "1.5", `"a"`: "a", `"` + long + `x"`: long + "x",
		`"` + long + `xy"`: postgres.TagInvalid, `"(other)"`: postgres.TagInvalid, `"a(b"`: "a(b", `""`: postgres.TagInvalid,
		`"a\u0001b"`: postgres.TagInvalid, `"\u007fa"`: postgres.TagInvalid, `"a\nb"`: postgres.TagInvalid,
		`"tab\t"`: postgres.TagInvalid, `true`: postgres.TagInvalid, `[1]`: postgres.TagInvalid, `{"a":1}`: postgres.TagInvalid,
		`null`: postgres.TagNone, ` "日本語 チーム" `: "日本語 チーム",
	}
	for in, want := range cases {
		var got, was string
		err := db.Pool.QueryRow(context.Background(), `SELECT llmcost_tag_value($1::jsonb), CASE
        WHEN $1::jsonb IS NULL OR jsonb_typeof($1::jsonb) = 'null' THEN '(none)'
        WHEN jsonb_typeof($1::jsonb) IN ('string', 'number') AND ($1::jsonb #>> '{}') ~ '^[^(\x01-\x1f\x7f][^\x01-\x1f\x7f]{0,63}$'
            THEN $1::jsonb #>> '{}'
        ELSE '(invalid)' END`, in).Scan(&got, &was)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got != want || was != want {
			t.Errorf("%s: llmcost_tag_value %q, migration 0034's rule %q, want %q", in, got, was, want)
		}
	}
}
