package pgtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var dbCounter atomic.Int64

// NewDatabase creates an empty database for this test alone and returns its
// URL. The database is dropped, connections and all, when the test ends, so
// tests may run in parallel without seeing each other's rows.
func NewDatabase(t testing.TB) string {
	t.Helper()
	state.Lock()
	main, admin, external := state.main, state.admin, state.external
	state.Unlock()
	if !main {
		t.Fatal("pgtest: NewDatabase needs pgtest.Main(m) in the package's TestMain")
	}
	name := databaseName(t.Name())
	ident := pgx.Identifier{name}.Sanitize()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := createDatabase(ctx, admin, ident, !external); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := adminExec(ctx, AdminURL(), "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping database %s: %v", name, err)
		}
	})
	return withDatabase(admin, name)
}

// noStrategy is set once the server has rejected STRATEGY (before PG 15).
var noStrategy atomic.Bool

// createDatabase copies template0, which nobody ever connects to, as CREATE
// DATABASE requires of its template. With fileCopy (our fsync-off server),
// STRATEGY FILE_COPY copies the files instead of WAL-logging every block,
// about half the time of the PG 15 default; on an external server with
// fsync on, its two checkpoints per database could cost more than they save.
func createDatabase(ctx context.Context, admin, ident string, fileCopy bool) error {
	sql := "CREATE DATABASE " + ident + " TEMPLATE template0"
	if fileCopy && !noStrategy.Load() {
		err := adminExec(ctx, admin, sql+" STRATEGY FILE_COPY")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42601" { // syntax_error
			return err
		}
		noStrategy.Store(true)
	}
	return adminExec(ctx, admin, sql)
}

// idleAdmin keeps a few admin connections: starting a backend costs about
// as much as creating the database itself.
var idleAdmin = make(chan *pgx.Conn, 4)

// adminExec runs one statement on an admin connection. A pooled connection
// may have died with the server (StopServer, an external server's idle
// timeout); then the statement is retried once on a fresh one.
func adminExec(ctx context.Context, admin, sql string) error {
	for attempt := 0; ; attempt++ {
		conn, pooled := (*pgx.Conn)(nil), false
		select {
		case conn = <-idleAdmin:
			pooled = true
		default:
			var err error
			if conn, err = pgx.Connect(ctx, admin); err != nil {
				return err
			}
		}
		_, err := conn.Exec(ctx, sql)
		if !conn.IsClosed() { // the statement ran, or failed on its own
			select {
			case idleAdmin <- conn:
			default:
				conn.Close(context.Background())
			}
			return err
		}
		conn.Close(context.Background())
		if !pooled || attempt > 0 {
			return err
		}
	}
}

// closeIdleAdmin closes the pooled admin connections, before a shutdown.
func closeIdleAdmin() {
	for {
		select {
		case conn := <-idleAdmin:
			conn.Close(context.Background())
		default:
			return
		}
	}
}

// databaseName derives a name from the test's, which helps when looking at
// a server, plus the process ID, a counter and random bytes, which make it
// unique among parallel test binaries, even on a shared external server.
func databaseName(testName string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= 32 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return fmt.Sprintf("t_%s_%s_%s_%s", b.String(), strconv.FormatInt(int64(os.Getpid()), 36),
		strconv.FormatInt(dbCounter.Add(1), 36), strings.ToLower(rand.Text()[:6]))
}

// withDatabase returns the connection string base with its database replaced.
// It accepts URLs (postgres://...) and keyword/value strings ("host=... ").
func withDatabase(base, db string) string {
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		if u, err := url.Parse(base); err == nil {
			u.Path, u.RawPath = "/"+db, ""
			return u.String()
		}
	}
	return base + " dbname=" + db // a later keyword overrides an earlier one
}
