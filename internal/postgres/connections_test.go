package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/providers"
)

func connection(project string) postgres.Connection {
	return postgres.Connection{ProjectID: project, Provider: "anthropic", KeySealed: []byte{1, 2, 3}, KeyHint: "abcd",
		WorkspaceIDs: []string{"wrkspc_a"}, BackfillDays: 30, ToleranceBP: 200}
}

// The session runs in a time zone far from UTC: a day must stay the UTC
// day it was stored as.
func TestConnectionSyncStore(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t)+"&timezone=Pacific/Kiritimati", 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var tz string
	if err := db.Pool.QueryRow(ctx, `SHOW TimeZone`).Scan(&tz); err != nil || tz != "Pacific/Kiritimati" {
		t.Fatalf("session time zone %q, %v", tz, err)
	}
	project := newProject(t, db)
	if created, restarted, err := db.PutConnection(ctx, connection(project)); err != nil || !created || !restarted {
		t.Fatalf("put: %v %v %v", created, restarted, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	day := providers.Day(now).AddDate(0, 0, -3)
	claimed, err := db.ClaimDueConnections(ctx, now, time.Minute, 10)
	if err != nil || len(claimed) != 1 || claimed[0].Synced {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	// Held by the lease: a second instance takes nothing.
	if again, _ := db.ClaimDueConnections(ctx, now, time.Minute, 10); len(again) != 0 {
		t.Fatalf("claimed twice: %+v", again)
	}
	rep := providers.Report{From: day, To: day.AddDate(0, 0, 3), Usage: []providers.Usage{
		{Day: day, Model: "m", Tier: "standard", Tokens: providers.Tokens{Input: 10, Output: 1}, Requests: 1},
		{Day: day, Model: "m", Tier: "standard", Tokens: providers.Tokens{Input: 5, CacheWrite1h: 2}, Requests: 1},
	}, Costs: []providers.Cost{{Day: day, Model: "m", Class: "input", Tier: "standard", Nano: 7}, {Day: day, Model: "m", Class: "input", Tier: "standard", Nano: 8}}}
	if err := db.StoreSync(ctx, claimed[0], rep, now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err := db.ProviderReports(ctx, project, day, day.AddDate(0, 0, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Usage) != 1 || got.Usage[0].Tokens != (providers.Tokens{Input: 15, CacheWrite1h: 2, Output: 1}) ||
		got.Usage[0].Requests != 2 || len(got.Costs) != 1 || got.Costs[0].Nano != 15 || len(got.Days) != 3 {
		t.Fatalf("stored %+v", got)
	}
	c, err := db.Connection(ctx, project, "anthropic")
	// Fetched now, yesterday is not final (it ended less than a day ago).
	if err != nil || c.SyncStatus != postgres.SyncOK || !c.Synced || c.Unsettled == nil || !c.Unsettled.Equal(day.AddDate(0, 0, 2)) {
		t.Fatalf("after sync: %+v %v", c, err)
	}
	// A new sync of the same days replaces them.
	rep.Usage, rep.Costs = rep.Usage[:1], nil
	if err := db.StoreSync(ctx, c, rep, now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.ProviderReports(ctx, project, day, day.AddDate(0, 0, 3)); len(got.Costs) != 0 || got.Usage[0].Requests != 1 {
		t.Fatalf("not replaced: %+v", got)
	}
	// The tolerance alone keeps what was fetched; a new scope drops it.
	next := connection(project)
	next.KeySealed, next.ToleranceBP = nil, 500
	if created, restarted, err := db.PutConnection(ctx, next); err != nil || created || restarted {
		t.Fatalf("tolerance only: %v %v %v", created, restarted, err)
	}
	if got, _ = db.ProviderReports(ctx, project, day, day.AddDate(0, 0, 3)); len(got.Usage) != 1 {
		t.Fatal("a tolerance change dropped the fetched days")
	}
	next.WorkspaceIDs = []string{"wrkspc_b"}
	if _, restarted, err := db.PutConnection(ctx, next); err != nil || !restarted {
		t.Fatalf("new scope: %v %v", restarted, err)
	}
	got, _ = db.ProviderReports(ctx, project, day, day.AddDate(0, 0, 3))
	c, _ = db.Connection(ctx, project, "anthropic")
	if len(got.Usage)+len(got.Days) != 0 || c.SyncStatus != postgres.SyncPending || string(c.KeySealed) != "\x01\x02\x03" {
		t.Fatalf("after a scope change: %+v, %+v", got, c)
	}
	if err := db.RecordSyncFailure(ctx, c, postgres.SyncFailed, "key refused", postgres.Never); err != nil {
		t.Fatal(err)
	}
	if due, _ := db.ClaimDueConnections(ctx, now.Add(48*time.Hour), time.Minute, 10); len(due) != 0 {
		t.Fatal("a failed connection was synced without being asked")
	}
	if err := db.RequestSync(ctx, project, "anthropic"); err != nil {
		t.Fatal(err)
	}
	if due, _ := db.ClaimDueConnections(ctx, now, time.Minute, 10); len(due) != 1 || *due[0].LastSyncError != "key refused" {
		t.Fatalf("sync now: %+v", due)
	}
	if err := db.DeleteConnection(ctx, project, "anthropic"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteConnection(ctx, project, "anthropic"); apierr.CodeOf(err) != apierr.NotFound {
		t.Fatalf("second delete: %v", err)
	}
}
