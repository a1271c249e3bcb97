package postgres_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/semconv"
)

// TestBulkLoadMatchesIngest is the analytics benchmark's loader in small:
// the same calls written by the ingest statement into one project and by
// COPY plus RebuildRollups into another give the same rollups.
func TestBulkLoadMatchesIngest(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	ingested, copied := newProject(t, db), newProject(t, db)
	spec := benchdata.Spec{Seed: 3, Events: 3000, Days: 1, Agents: 5, Users: 20, Sessions: 4, Workflows: 3}
	anchor := time.Now().UTC()
	day := benchdata.Generate(spec, pricing.Builtin(), ingested, anchor, 0)
	for i := 0; i < len(day.Events); i += 1000 {
		if _, err := db.Write(ctx, day.Events[i:i+1000], nil); err != nil {
			t.Fatal(err)
		}
	}
	var outcomes []postgres.RecordedOutcome
	for i := range day.Events {
		day.Events[i].ProjectID = copied
	}
	for _, o := range day.Outcomes {
		outcomes = append(outcomes, postgres.RecordedOutcome{RecordedAt: o.At,
			Outcome: semconv.Outcome{ProjectID: copied, TraceID: o.TraceID, Success: o.Success, Label: o.Label}})
	}
	if n, err := db.CopyEvents(ctx, day.Events); err != nil || n != 3000 {
		t.Fatalf("copied %d events: %v", n, err)
	}
	if n, err := db.CopyOutcomes(ctx, outcomes); err != nil || n != int64(len(outcomes)) || n == 0 {
		t.Fatalf("copied %d of %d outcomes: %v", n, len(outcomes), err)
	}
	if err := db.RebuildRollups(ctx, copied); err != nil {
		t.Fatal(err)
	}
	// The rebuild merged the other projects' tails on the way.
	if n, err := db.TailEvents(ctx, ingested); err != nil || n != 0 {
		t.Fatalf("the rebuild left %d of the ingested events in the tail (%v)", n, err)
	}
	want, rows, err := db.RollupDigest(ctx, ingested)
	if err != nil || rows == 0 {
		t.Fatalf("digest of ingest's rollups: %d rows, %v", rows, err)
	}
	if got, n, err := db.RollupDigest(ctx, copied); err != nil || got != want || n != rows {
		t.Fatalf("rollups after COPY: %d rows %s, ingest's: %d rows %s (%v)", n, got, rows, want, err)
	}
	if n, err := db.CountEvents(ctx, copied); err != nil || n != 3000 {
		t.Fatalf("count %d: %v", n, err)
	}
	distinct := map[string]bool{}
	for _, ev := range day.Events {
		distinct[ev.AgentName] = true
	}
	if agents, err := db.NaiveSpendByAgent(ctx, copied, anchor.Add(-48*time.Hour)); err != nil || agents != len(distinct) {
		t.Fatalf("naive report: %d agents, want %d (%v)", agents, len(distinct), err)
	}
}

func TestTableSizesListsEvents(t *testing.T) {
	db := openDB(t)
	sizes, err := db.TableSizes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sizes, func(s postgres.TableSize) bool { return s.Name == "events" })
	if i < 0 || sizes[i].Bytes <= 0 {
		t.Fatalf("events missing or empty in %+v", sizes)
	}
	// A partitioned table is listed once, with its partitions' pages.
	if i := slices.IndexFunc(sizes, func(s postgres.TableSize) bool { return s.Name == "rollup_day" }); i < 0 || sizes[i].Bytes <= 0 {
		t.Fatalf("rollup_day missing or empty in %+v", sizes)
	}
	if slices.ContainsFunc(sizes, func(s postgres.TableSize) bool { return strings.HasPrefix(s.Name, "rollup_day_") }) {
		t.Fatalf("partitions listed on their own: %+v", sizes)
	}
	if !slices.IsSortedFunc(sizes, func(a, b postgres.TableSize) int { return int(b.Bytes - a.Bytes) }) {
		t.Fatalf("not largest first: %+v", sizes)
	}
}

func TestRecreateDatabaseEmptiesIt(t *testing.T) {
	ctx := context.Background()
	admin := pgtest.AdminURL()
	const name = "bulk_recreate_test"
	for i := range 2 { // the second run drops what the first created and migrated
		if err := postgres.RecreateDatabase(ctx, admin, name); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(admin)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		db, err := postgres.Open(ctx, u.String(), 2)
		if err != nil {
			t.Fatal(err)
		}
		n, err := db.Migrate(ctx)
		db.Close()
		if err != nil || n == 0 {
			t.Fatalf("round %d: migrations applied to the recreated database: %d (%v)", i, n, err)
		}
	}
}
