package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// The raw storage job, run at start, moves a back-filled call out of
// DEFAULT into its month's new partition and then drops that month, which
// the deployment's 30-day retention has expired for the only project,
// then deletes the call's rollups, which its 40-day rollup retention has
// expired too.
func TestRawStorageJobCreatesAndExpiresPartitions(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	ctx := context.Background()
	user, project := uuid.NewString(), uuid.NewString()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO users (id, email) VALUES ($1, $2)`, user, user+"@example.com"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO projects (id, name, owner_id, key_hash, key_prefix) VALUES ($1, 'p', $2, $3, 'k')`,
		project, user, []byte(project)); err != nil {
		t.Fatal(err)
	}
	old := event.Event{ProjectID: project, EventID: "old", AgentName: "a", Model: "m", InputTokens: 1, OutputTokens: 1, TotalTokens: 2,
		Success: true, Billing: "api", Source: "batch", Timestamp: time.Date(2019, 5, 10, 0, 0, 0, 0, time.UTC)}
	if res, err := db.Write(ctx, []event.Event{old}, nil); err != nil || res.Stored != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	for {
		res, err := db.MergeRollups(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Groups == 0 {
			break
		}
	}
	db.RawRetentionDays, db.RollupRetentionDays = 30, 40
	startRunner(t, Config{Pool: db.Pool, Retry: fast, MailAttempts: 1, RawStorage: db, RawStorageInterval: time.Hour})
	ahead := "events_p" + time.Now().UTC().AddDate(0, 0, -time.Now().UTC().Day()+1).AddDate(0, RawMonthsAhead, 0).Format("200601")
	var dropped, rollupsGone *time.Time
	var stored, rollups int
	var aheadMade bool
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := db.Pool.QueryRow(ctx, `SELECT (SELECT dropped_before FROM raw_expiry), (SELECT count(*) FROM events WHERE event_id = 'old'),
  to_regclass($1) IS NOT NULL, (SELECT rollup_expired_before FROM projects WHERE id = $2),
  (SELECT count(*) FROM rollup_hour WHERE project_id = $2) + (SELECT count(*) FROM rollup_day WHERE project_id = $2)`,
			ahead, project).Scan(&dropped, &stored, &aheadMade, &rollupsGone, &rollups); err != nil {
			t.Fatal(err)
		}
		if dropped != nil && rollupsGone != nil && !rollupsGone.Before(time.Now().UTC().AddDate(0, 0, -40).Truncate(24*time.Hour)) {
			break
		}
	}
	if dropped == nil || !dropped.Equal(time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC)) || stored != 0 || !aheadMade {
		t.Fatalf("after the job: dropped before %v, the old call stored %d times, %s created %v", dropped, stored, ahead, aheadMade)
	}
	if want := time.Now().UTC().AddDate(0, 0, -40).Truncate(24 * time.Hour); rollupsGone == nil || rollupsGone.Before(want) || rollups != 0 {
		t.Fatalf("after the job: rollups expired before %v (want %s), %d rollup rows left of the old call", rollupsGone, want, rollups)
	}
}
