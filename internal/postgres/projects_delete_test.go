package postgres_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// filled is a project with rows in most tables that have a project_id.
type filled struct {
	id, user string
	key      []byte
}

// fillProject registers a project and stores merged calls with runs, a
// budget, a webhook, a notification, a provider connection with a fetched
// day; writeTail adds calls the mergers have not folded yet.
func fillProject(t *testing.T, db *postgres.DB, rng *rand.Rand) filled {
	t.Helper()
	ctx := context.Background()
	key := authn.Hash(authn.NewAPIKey())
	u, p, err := db.Register(ctx, postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: key, KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 5, 30, 22, 0, 0, 0, time.UTC)
	if _, err := db.Write(ctx, randomEvents(rng, p.ID, 150, t0), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write(ctx, randomRunCalls(rng, p.ID, 150, t0), nil); err != nil {
		t.Fatal(err)
	}
	merge(t, db)
	mergeRuns(t, db)
	if err := db.PutBudget(ctx, p.ID, postgres.Budget{Enabled: true, Mode: "warn", BudgetNano: 1e12,
		Thresholds: []int32{50}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutWebhook(ctx, p.ID, "https://example.com/hook", "secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO notifications (user_id, project_id, type, title, body, data)
		VALUES ($2, $1, 't', 't', 'b', '{}')`, p.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO provider_connections (project_id, provider, key_sealed, key_hint, backfill_days, tolerance_bp)
			VALUES ($1, 'openai', '\x00', 'abcd', 30, 100)`,
		`INSERT INTO provider_days (project_id, provider, day, fetched_at, costs) VALUES ($1, 'openai', '2026-05-30', now(), true)`,
	} {
		if _, err := db.Pool.Exec(ctx, q, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	return filled{id: p.ID, user: u.ID, key: key}
}

// writeTail stores calls of runs and leaves them to the mergers: in their
// tail, their runs marked.
func writeTail(t *testing.T, db *postgres.DB, rng *rand.Rand, project string) {
	t.Helper()
	tail := randomRunCalls(rng, project, 60, time.Date(2026, 5, 30, 23, 0, 0, 0, time.UTC))
	for i := range tail {
		tail[i].EventID = fmt.Sprintf("tail%d", i)
	}
	if _, err := db.Write(context.Background(), tail, nil); err != nil {
		t.Fatal(err)
	}
}

// projectRows counts a project's rows in every base table with a
// project_id column, as information_schema lists them (partitions as well
// as their parent): a table added later is counted without a change here.
func projectRows(t *testing.T, db *postgres.DB, project string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `SELECT c.table_name FROM information_schema.columns c
		JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.column_name = 'project_id' AND c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 30 {
		t.Fatalf("%d tables with a project_id (%v)", len(tables), err)
	}
	out := map[string]int64{}
	for _, table := range tables {
		var n int64
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()+
			` WHERE project_id = $1`, project).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	var own int64
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM projects WHERE id = $1`, project).Scan(&own); err != nil {
		t.Fatal(err)
	}
	out["projects"] = own
	return out
}

// storedRows sums counts of projectRows over the tables that store rows:
// not a partitioned table, whose partitions are counted, nor projects.
func storedRows(t *testing.T, db *postgres.DB, counts map[string]int64) int64 {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT relname::text FROM pg_class WHERE relkind = 'p'`)
	if err != nil {
		t.Fatal(err)
	}
	parents, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for table, c := range counts {
		if table != "projects" && !slices.Contains(parents, table) {
			n += c
		}
	}
	return n
}

// Deleting a project answers before its rows go: from then no key,
// member or list reaches it, while its rows are still there. The purge
// then removes them in chunks; interrupted after one chunk (a crash), with
// the mergers folding the project's tail meanwhile, it continues when run
// again and leaves no row of the project in any table, and nothing of
// another project is touched.
func TestDeleteProjectHidesAtOnceAndPurgesInChunks(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 3))
	a, b := fillProject(t, db, rng), fillProject(t, db, rng)
	writeTail(t, db, rng, a.id)
	writeTail(t, db, rng, b.id)
	kept := projectRows(t, db, b.id)
	var queued []string
	db.EnqueuePurge = func(_ context.Context, _ pgx.Tx, id string) error {
		queued = append(queued, id)
		return nil
	}

	if err := db.DeleteProject(ctx, a.id, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(queued, []string{a.id}) {
		t.Fatalf("queued purges %v, want the project's", queued)
	}
	if _, err := db.ProjectIDByKeyHash(ctx, a.key); !isCode(err, apierr.Unauthorized) {
		t.Fatalf("the deleted project's key: %v, want unauthorized", err)
	}
	if _, err := db.ProjectByID(ctx, a.id); !isCode(err, apierr.NotFound) {
		t.Fatalf("the deleted project read by id: %v, want not found", err)
	}
	if _, _, err := db.MemberRole(ctx, a.id, a.user); !isCode(err, apierr.NotFound) {
		t.Fatalf("the owner's role in the deleted project: %v, want not found", err)
	}
	if l, err := db.UserProjects(ctx, a.user); err != nil || len(l) != 0 {
		t.Fatalf("the owner's projects after the delete: %v, %v", l, err)
	}
	if err := db.DeleteProject(ctx, a.id, time.Now()); !isCode(err, apierr.NotFound) {
		t.Fatalf("deleting again: %v, want not found", err)
	}
	before := projectRows(t, db, a.id)
	for _, table := range []string{"events", "runs", "run_steps", "runs_pending", "rollup_hour", "rollup_day",
		"agent_key_hour", "budgets", "spend_month", "provider_days", "projects"} {
		if before[table] == 0 {
			t.Errorf("no row of the deleted project in %s before the purge: the test fills too little", table)
		}
	}
	for _, table := range []string{"memberships", "notifications", "webhooks"} {
		if before[table] != 0 {
			t.Errorf("%d rows of the deleted project in %s: they must go with the delete", before[table], table)
		}
	}
	if _, err := db.PurgeProject(ctx, b.id, postgres.PurgeOptions{}); err == nil {
		t.Fatal("a project nobody deleted was purged")
	}

	// Stopped after its fifth chunk, the purge has taken the marks and
	// the batch log, and started on the calls.
	res, err := db.PurgeProject(ctx, a.id, postgres.PurgeOptions{Chunk: 40, MaxChunks: 5})
	if err != nil || res.Done || res.Chunks != 5 || res.Rows == 0 {
		t.Fatalf("purge stopped after 5 chunks: %+v, %v", res, err)
	}
	left := projectRows(t, db, a.id)
	if left["runs_pending"] != 0 || left["events"] == 0 || left["events"] >= before["events"] {
		t.Fatalf("after 5 chunks: %v", left)
	}
	if got := projectRows(t, db, b.id); !maps.Equal(got, kept) {
		t.Fatalf("the other project's rows changed:\n got %v\nwant %v", got, kept)
	}
	// The mergers fold what is left of both projects' tails meanwhile.
	merge(t, db)
	mergeRuns(t, db)
	kept = projectRows(t, db, b.id)
	left = projectRows(t, db, a.id)
	res, err = db.PurgeProject(ctx, a.id, postgres.PurgeOptions{Chunk: 40})
	if err != nil || !res.Done || res.Chunks < 10 {
		t.Fatalf("purge run again: %+v, %v", res, err)
	}
	// The chunks deleted every row themselves: none was left to the
	// cascade of the project's row.
	if want := storedRows(t, db, left); res.Rows != want {
		t.Fatalf("the chunks deleted %d rows, want all %d left: %v", res.Rows, want, left)
	}
	for table, n := range projectRows(t, db, a.id) {
		if n != 0 {
			t.Errorf("%d rows of the purged project left in %s", n, table)
		}
	}
	if got := projectRows(t, db, b.id); !maps.Equal(got, kept) {
		t.Fatalf("the other project's rows changed:\n got %v\nwant %v", got, kept)
	}
	if id, err := db.ProjectIDByKeyHash(ctx, b.key); err != nil || id != b.id {
		t.Fatalf("the other project's key: %q, %v", id, err)
	}
	if res, err := db.PurgeProject(ctx, a.id, postgres.PurgeOptions{}); err != nil || !res.Done || res.Rows != 0 {
		t.Fatalf("purging a purged project: %+v, %v", res, err)
	}
}

// Without a job runner the delete purges before it returns.
func TestDeleteProjectWithoutARunnerPurgesAtOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 4))
	a := fillProject(t, db, rng)
	writeTail(t, db, rng, a.id)
	if err := db.DeleteProject(ctx, a.id, time.Now()); err != nil {
		t.Fatal(err)
	}
	for table, n := range projectRows(t, db, a.id) {
		if n != 0 {
			t.Errorf("%d rows of the deleted project left in %s", n, table)
		}
	}
}

func isCode(err error, code string) bool { return err != nil && apierr.CodeOf(err) == code }

// A purge chunk reads the rows after its cursor through the primary key,
// in order, and stops at the chunk's last: it does not read the project's
// every remaining row and sort them, which a partition filled faster than
// it is analyzed (no statistics: the planner guesses a few hundred rows)
// made it do, each chunk again.
func TestPurgeChunkWalksThePrimaryKey(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	batch := make([]event.Event, 1000)
	for i := range 30 {
		for j := range batch {
			batch[j] = call(p, fmt.Sprintf("k%06d", i*1000+j), 1)
		}
		if _, err := db.Write(ctx, batch, nil); err != nil {
			t.Fatal(err)
		}
	}
	var part string
	if err := db.Pool.QueryRow(ctx, `SELECT tableoid::regclass::text FROM events WHERE project_id = $1 LIMIT 1`, p).Scan(&part); err != nil {
		t.Fatal(err)
	}
	for _, after := range [][]string{nil, {"k010000"}} {
		plan, err := db.PurgeChunkPlan(ctx, part, p, after)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "Index Scan using "+part+"_pkey on "+part) || strings.Contains(plan, "Bitmap Heap Scan") {
			t.Errorf("a chunk of %s after %v does not walk the primary key:\n%s", part, after, plan)
		}
	}
}
