package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres/pgserver"
)

// Replicated is a primary of its own and a streaming replica of it (a hot
// standby), both private servers on Unix sockets, for a test of reads from
// a replica. They are apart from the package's shared server: a base
// backup of it would copy every other test's database.
type Replicated struct {
	// PrimaryURL and ReplicaURL name the database "llmcost" on each.
	PrimaryURL, ReplicaURL string

	primary *pgserver.Server
	mu      sync.Mutex
	replica *pgserver.Server // nil while stopped
	opts    pgserver.Options
}

// NewReplicated starts a primary and a replica of it, stopped and removed
// when the test ends. It needs the PostgreSQL server binaries and
// pg_basebackup, whatever LLMCOST_TEST_DATABASE_URL says.
func NewReplicated(t testing.TB) *Replicated {
	t.Helper()
	dir, err := os.MkdirTemp(dataParent(), runPrefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil { // postgres may run as another account
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, err := pgserver.Start(ctx, pgserver.Options{DataDir: filepath.Join(dir, "primary"), NoFsync: true,
		TemplateDir: templateDir()})
	if err != nil {
		t.Fatalf("pgtest: starting the primary: %v", err)
	}
	t.Cleanup(func() { stopQuietly(primary) })
	r := &Replicated{PrimaryURL: primary.URL(), primary: primary,
		opts: pgserver.Options{DataDir: filepath.Join(dir, "replica"), NoFsync: true}}
	r.replica, err = pgserver.StartReplica(ctx, primary, r.opts)
	if err != nil {
		t.Fatalf("pgtest: starting the replica: %v", err)
	}
	r.ReplicaURL = r.replica.URL()
	t.Cleanup(func() { r.StopReplica(t) })
	return r
}

// StopReplica shuts the replica down (a fast shutdown) until StartReplica.
func (r *Replicated) StopReplica(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.replica == nil {
		return
	}
	err := stopQuietly(r.replica)
	r.replica = nil
	if err != nil {
		t.Errorf("pgtest: stopping the replica: %v", err)
	}
}

// StartReplica starts the stopped replica again on its data, with the
// same URL; it catches up with the primary from where it stopped.
func (r *Replicated) StartReplica(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.replica != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := pgserver.StartReplica(ctx, r.primary, r.opts)
	if err != nil {
		t.Fatalf("pgtest: restarting the replica: %v", err)
	}
	r.replica = s
}

func stopQuietly(s *pgserver.Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.Stop(ctx)
}
