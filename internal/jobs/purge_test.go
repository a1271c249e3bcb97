package jobs

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// projectWithCalls registers a project and stores n calls of it.
func projectWithCalls(t *testing.T, db *postgres.DB, n int) string {
	t.Helper()
	ctx := context.Background()
	_, p, err := db.Register(ctx, postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	evs := make([]event.Event, n)
	for i := range evs {
		evs[i] = event.Event{ProjectID: p.ID, EventID: fmt.Sprintf("e%d", i), AgentName: "a", Model: "m",
			InputTokens: 1, OutputTokens: 1, TotalTokens: 2, Timestamp: time.Now().UTC(), Success: true,
			Billing: "api", Source: "batch", TraceID: fmt.Sprintf("t%d", i%7)}
	}
	if _, err := db.Write(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func countRows(t *testing.T, db *postgres.DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A deletion queues its purge in its own transaction; the runner works it
// on the purge queue until the project's row is gone.
func TestADeletedProjectIsPurgedByTheRunner(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	gone, kept := projectWithCalls(t, db, 30), projectWithCalls(t, db, 30)
	r := startRunner(t, Config{Pool: db.Pool, Retry: fast, MailAttempts: 1, DB: db})
	db.EnqueuePurge = r.EnqueuePurgeTx
	if err := db.DeleteProject(context.Background(), gone, time.Now()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for countRows(t, db, `SELECT count(*) FROM projects WHERE id = $1`, gone) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the deleted project's row is still there after 15 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := countRows(t, db, `SELECT count(*) FROM events WHERE project_id = $1`, gone); n != 0 {
		t.Fatalf("%d calls of the purged project left", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM events WHERE project_id = $1`, kept); n != 30 {
		t.Fatalf("the other project has %d calls, want 30", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM river_job WHERE kind = 'project_purge' AND queue = $1
		AND args->>'project_id' = $2`, PurgeQueue, gone); n != 1 {
		t.Fatalf("%d purge jobs of the project, want 1", n)
	}
}

// crashingPurger stops the first purge after one chunk with an error, as a
// crash or a lost connection would.
type crashingPurger struct {
	db      *postgres.DB
	crashed bool
}

func (c *crashingPurger) PurgeProject(ctx context.Context, id string, opts postgres.PurgeOptions) (postgres.PurgeResult, error) {
	if !c.crashed {
		c.crashed = true
		res, err := c.db.PurgeProject(ctx, id, postgres.PurgeOptions{Chunk: 5, MaxChunks: 6})
		return res, errors.Join(err, errors.New("connection lost"))
	}
	return c.db.PurgeProject(ctx, id, opts)
}

// A purge that fails is an error for River to retry, and the retry
// continues with what is left.
func TestAFailedPurgeContinuesWhenRetried(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	id := projectWithCalls(t, db, 30)
	db.EnqueuePurge = func(context.Context, pgx.Tx, string) error { return nil }
	if err := db.DeleteProject(context.Background(), id, time.Now()); err != nil {
		t.Fatal(err)
	}
	w := &purgeWorker{db: &crashingPurger{db: db}, log: zap.NewNop()}
	job := &river.Job[PurgeArgs]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: PurgeArgs{ProjectID: id}}
	if err := w.Work(context.Background(), job); err == nil {
		t.Fatal("the crashed purge reported success")
	}
	if n := countRows(t, db, `SELECT count(*) FROM events WHERE project_id = $1`, id); n == 0 || n == 30 {
		t.Fatalf("%d of 30 calls left after the crash, want some gone and some left", n)
	}
	if err := w.Work(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM projects WHERE id = $1`, id); n != 0 {
		t.Fatal("the project's row is left after the retry")
	}
}

// A purge longer than its slice snoozes (no attempt taken) and the next
// run continues: here each run stops after its first chunk with rows.
func TestAPurgeContinuesInSlices(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	id := projectWithCalls(t, db, 30)
	db.EnqueuePurge = func(context.Context, pgx.Tx, string) error { return nil }
	if err := db.DeleteProject(context.Background(), id, time.Now()); err != nil {
		t.Fatal(err)
	}
	w := &purgeWorker{db: db, log: zap.NewNop(), sliceFor: time.Nanosecond}
	job := &river.Job[PurgeArgs]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: PurgeArgs{ProjectID: id}}
	runs := 1
	for ; ; runs++ {
		err := w.Work(context.Background(), job)
		if err == nil {
			break
		}
		var snooze *river.JobSnoozeError
		if !errors.As(err, &snooze) || runs > 100 {
			t.Fatalf("run %d: %v, want a snooze", runs, err)
		}
	}
	if runs < 3 {
		t.Fatalf("the purge ended in %d runs, want one per table with rows", runs)
	}
	if n := countRows(t, db, `SELECT count(*) FROM projects WHERE id = $1`, id); n != 0 {
		t.Fatal("the project's row is left after the last run")
	}
}

// A project marked deleted whose purge is gone (given up, or deleted where
// no runner ran) gets one again at start, and only one.
func TestResumePurgesQueuesOnePerDeletedProject(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	gone, kept := projectWithCalls(t, db, 30), projectWithCalls(t, db, 30)
	db.EnqueuePurge = func(context.Context, pgx.Tx, string) error { return nil } // the job is lost
	if err := db.DeleteProject(context.Background(), gone, time.Now()); err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Pool: db.Pool, Retry: fast, MailAttempts: 1, DB: db})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 0} {
		if n, err := r.ResumePurges(context.Background(), db); err != nil || n != want {
			t.Fatalf("resume %d: %d queued, %v; want %d", i+1, n, err, want)
		}
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Stop(ctx)
	})
	deadline := time.Now().Add(15 * time.Second)
	for countRows(t, db, `SELECT count(*) FROM projects WHERE id = $1`, gone) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the resumed purge did not end within 15 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := countRows(t, db, `SELECT count(*) FROM events WHERE project_id = $1`, kept); n != 30 {
		t.Fatalf("the other project has %d calls, want 30", n)
	}
}
