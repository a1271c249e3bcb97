package postgres_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// replicaWait is the tests' bound on waiting for the replica.
const replicaWait = 50 * time.Millisecond

// TestReplicaReadsIncludeAcknowledgedWrites runs the reports against a
// real streaming replica: every report read right after a write includes
// it, the replica answers once it has caught up, and a replica whose
// replay is paused, or that is stopped, costs a report at most its wait
// before the primary answers, never a failure; a restarted replica is
// used again.
func TestReplicaReadsIncludeAcknowledgedWrites(t *testing.T) {
	rp := pgtest.NewReplicated(t)
	ctx := context.Background()
	// patient waits for the replica as long as it takes a live one to
	// replay a batch, so every read of it is the replica's; quick waits
	// replicaWait, so a lagging or dead replica shows in its latency.
	patient, _ := openReplicated(t, rp, 30*time.Second)
	quick, states := openReplicated(t, rp, replicaWait)
	if _, err := patient.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p := newProject(t, patient)
	written := 0
	// check writes a batch of two calls of one run, then reads it back at
	// once: the calls report and the runs report include the batch.
	check := func(db *postgres.DB, when string) time.Duration {
		t.Helper()
		now := time.Now().UTC()
		id := fmt.Sprintf("%s-%d", strings.ReplaceAll(when, " ", "-"), written)
		mustWrite(t, db, stored(p, id+"-a", "m", now.Add(-time.Minute), 10, 1, tracedRun(id)),
			stored(p, id+"-b", "m", now.Add(-time.Minute), 10, 1, tracedRun(id)))
		written++
		t0 := time.Now()
		w := analytics.Window(analytics.Range1h, now.Add(time.Minute))
		res, err := db.ReadWindows(ctx, postgres.WindowQuery{ProjectID: p, Dim: "agent",
			Segments: analytics.Decompose(w, analytics.Raw)})
		if err != nil {
			t.Fatalf("%s: report: %v", when, err)
		}
		if calls := analytics.Total(res[0].Keys).Calls; calls != int64(2*written) {
			t.Fatalf("%s: the report counts %d calls right after the batch, want %d", when, calls, 2*written)
		}
		runs, err := db.TraceRows(ctx, postgres.RunQuery{ProjectID: p, Start: w.Start, End: w.End, Limit: 1000})
		if err != nil {
			t.Fatalf("%s: runs report: %v", when, err)
		}
		if len(runs) != written {
			t.Fatalf("%s: the runs report has %d runs right after the batch, want %d", when, len(runs), written)
		}
		took := time.Since(t0)
		t.Logf("%s: two reports in %s", when, took)
		return took
	}

	// A live replica: every read waits for it to replay the batch (and the
	// runs report's refresh of its marks), then reads it.
	for i := range 5 {
		check(patient, fmt.Sprintf("caught up %d", i))
	}
	if r, pr, _ := patient.ReplicaReads(); r != 10 || pr != 0 {
		t.Fatalf("reads of a live replica: %d on the replica, %d on the primary; want all 10 on the replica", r, pr)
	}
	replica := openReplicaConn(t, rp.ReplicaURL)
	var backends int
	if err := replica.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = 'llmcost' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`).Scan(&backends); err != nil || backends == 0 {
		t.Fatalf("the replica serves no connection of llmcost's (%d, %v)", backends, err)
	}

	// Paused replay: the replica is behind, so the reports come from the
	// primary after at most the wait each.
	if _, err := replica.Exec(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if took := check(quick, fmt.Sprintf("paused %d", i)); took > 2*replicaWait+time.Second {
			t.Errorf("paused %d: two reports took %s with the replica behind, want about the wait (%s) at most", i, took, replicaWait)
		}
	}
	if r, pr, _ := quick.ReplicaReads(); r != 0 || pr != 6 {
		t.Fatalf("with replay paused %d reads went to the replica and %d to the primary, want all 6 on the primary", r, pr)
	}
	if _, err := replica.Exec(ctx, `SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	r0, _, _ := patient.ReplicaReads()
	check(patient, "resumed")
	if r1, _, _ := patient.ReplicaReads(); r1 != r0+2 {
		t.Fatalf("%d reads went to the replica once its replay resumed, want 2", r1-r0)
	}
	replica.Close(ctx)

	// Stopped: the first report pays a failed attempt, later ones go
	// straight to the primary until the replica is tried again.
	rp.StopReplica(t)
	_, p0, _ := quick.ReplicaReads()
	for i := range 4 {
		if took := check(quick, fmt.Sprintf("stopped %d", i)); took > 2*replicaWait+2*time.Second {
			t.Errorf("stopped %d: two reports took %s with the replica down", i, took)
		}
	}
	if _, p1, _ := quick.ReplicaReads(); p1 != p0+8 {
		t.Fatalf("with the replica down %d of 8 reads went to the primary", p1-p0)
	}
	if s := states(); len(s) == 0 || s[len(s)-1] == nil {
		t.Fatalf("the replica's failure was not reported: %v", s)
	}
	rp.StartReplica(t)
	deadline := time.Now().Add(30 * time.Second)
	for r0, _, _ = quick.ReplicaReads(); ; {
		check(quick, "restarted")
		if r1, _, _ := quick.ReplicaReads(); r1 > r0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted replica was not used again within 30 s (states %v)", states())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if s := states(); s[len(s)-1] != nil {
		t.Fatalf("the replica's return was not reported: %v", s)
	}
}

// openReplicated opens the replicated pair's primary with its replica,
// and the replica's states as reported.
func openReplicated(t *testing.T, rp *pgtest.Replicated, wait time.Duration) (*postgres.DB, func() []error) {
	t.Helper()
	db, err := postgres.Open(context.Background(), rp.PrimaryURL, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	var mu sync.Mutex
	var states []error
	if err := db.OpenReplica(rp.ReplicaURL, postgres.ReplicaOptions{Wait: wait, Report: func(err error) {
		mu.Lock()
		states = append(states, err)
		mu.Unlock()
	}}); err != nil {
		t.Fatal(err)
	}
	return db, func() []error {
		mu.Lock()
		defer mu.Unlock()
		return append([]error(nil), states...)
	}
}

// TestReplicaURLMustBePostgres: a replica URL of another database or
// scheme is refused, naming what is expected.
func TestReplicaURLMustBePostgres(t *testing.T) {
	for _, bad := range []string{"mysql://u:secret@db/llmcost", "http://replica:5432/", "redis://r:6379/0", "not a url"} {
		err := postgres.CheckURL(bad)
		if err == nil || !strings.Contains(err.Error(), "PostgreSQL") || strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: %v, want a refusal naming PostgreSQL without the password", bad, err)
		}
	}
	for _, good := range []string{"postgres://u@replica:5432/llmcost", "postgresql://u@replica/llmcost?sslmode=require",
		"host=replica port=5432 dbname=llmcost"} {
		if err := postgres.CheckURL(good); err != nil {
			t.Errorf("%q refused: %v", good, err)
		}
	}
}

func openReplicaConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestReplicaThatDoesNotAnswer: a replica whose address accepts
// connections and never answers (a hung server, a dropped route) costs a
// report at most the wait, and once its poll has timed out it is set aside
// and costs nothing.
func TestReplicaThatDoesNotAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	db := openDB(t)
	var mu sync.Mutex
	var states []error
	if err := db.OpenReplica("postgres://llmcost@"+ln.Addr().String()+"/llmcost?sslmode=disable",
		postgres.ReplicaOptions{Wait: replicaWait, Report: func(err error) {
			mu.Lock()
			states = append(states, err)
			mu.Unlock()
		}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := newProject(t, db)
	mustWrite(t, db, call(p, "one", 10))
	w := analytics.Window(analytics.Range1h, time.Now().Add(time.Minute))
	q := postgres.WindowQuery{ProjectID: p, Dim: "agent", Segments: analytics.Decompose(w, analytics.Raw)}
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		t0 := time.Now()
		res, err := db.ReadWindows(ctx, q)
		if err != nil || analytics.Total(res[0].Keys).Calls != 1 {
			t.Fatalf("read %d with a hung replica: %+v, %v", i, res, err)
		}
		if took := time.Since(t0); took > replicaWait+time.Second {
			t.Errorf("read %d with a hung replica took %s", i, took)
		}
		mu.Lock()
		aside := len(states) > 0 && states[0] != nil
		mu.Unlock()
		if aside {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a replica that never answers was not set aside within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r, pr, _ := db.ReplicaReads(); r != 0 || pr == 0 {
		t.Fatalf("reads with a hung replica: replica %d, primary %d", r, pr)
	}
}
