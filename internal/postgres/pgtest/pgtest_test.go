package pgtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec1(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	var ok bool
	err := connect(t, AdminURL()).QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func currentDatabase(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var name string
	if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestServerStartup(t *testing.T) {
	if state.external {
		t.Skipf("using %s", EnvURL)
	}
	t.Logf("private server: init + start took %v; admin URL %s", state.startTook, AdminURL())
}

func TestNewDatabaseIsolated(t *testing.T) {
	const n = 10
	t0 := time.Now()
	urls := make([]string, n)
	for i := range urls {
		urls[i] = NewDatabase(t)
	}
	t.Logf("NewDatabase: %v each (mean of %d)", time.Since(t0)/n, n)

	a, b := connect(t, urls[0]), connect(t, urls[1])
	exec1(t, a, "CREATE TABLE only_in_a (x int)")
	if _, err := b.Exec(context.Background(), "SELECT * FROM only_in_a"); err == nil {
		t.Fatal("database b sees a table created in database a")
	}
	if currentDatabase(t, a) == currentDatabase(t, b) {
		t.Fatal("two NewDatabase calls returned the same database")
	}
}

func TestNewDatabaseDroppedAfterTest(t *testing.T) {
	var name string
	t.Run("inner", func(t *testing.T) {
		conn := connect(t, NewDatabase(t))
		name = currentDatabase(t, conn)
		if !strings.HasPrefix(name, "t_testnewdatabasedroppedaftertest") {
			t.Errorf("database name %q does not start with the test's name", name)
		}
		// An open connection of its own, never closed, must not block the drop.
		if _, err := pgx.Connect(context.Background(), NewDatabase(t)); err != nil {
			t.Fatal(err)
		}
	})
	if databaseExists(t, name) {
		t.Fatalf("database %s still exists after its test ended", name)
	}
}

func TestNewDatabaseAfterAdminConnectionDied(t *testing.T) {
	NewDatabase(t) // leaves an idle admin connection in the pool
	exec1(t, connect(t, AdminURL()), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = 'postgres' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`)
	exec1(t, connect(t, NewDatabase(t)), "SELECT 1")
}

func TestParallelDatabases(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			conn := connect(t, NewDatabase(t))
			exec1(t, conn, "CREATE TABLE t (x int)")
			exec1(t, conn, fmt.Sprintf("INSERT INTO t VALUES (%d)", i))
			var got int
			if err := conn.QueryRow(context.Background(), "SELECT sum(x) FROM t").Scan(&got); err != nil || got != i {
				t.Fatalf("sum = %d (%v), want %d", got, err, i)
			}
		})
	}
}

func TestStopAndStartServer(t *testing.T) {
	if state.external {
		t.Skipf("using %s", EnvURL)
	}
	url := NewDatabase(t)
	exec1(t, connect(t, url), "CREATE TABLE kv (k int); INSERT INTO kv VALUES (42)")

	t0 := time.Now()
	StopServer(t)
	t.Logf("StopServer took %v", time.Since(t0))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, url); err == nil {
		conn.Close(ctx)
		t.Fatal("connected while the server was stopped")
	}

	t1 := time.Now()
	StartServer(t)
	t.Logf("StartServer took %v", time.Since(t1))
	var k int
	if err := connect(t, url).QueryRow(context.Background(), "SELECT k FROM kv").Scan(&k); err != nil || k != 42 {
		t.Fatalf("after restart: k = %d (%v), want 42", k, err)
	}
}

func TestStopServerIsUndoneAfterTest(t *testing.T) {
	if state.external {
		t.Skipf("using %s", EnvURL)
	}
	t.Run("stops and forgets", func(t *testing.T) { StopServer(t) })
	exec1(t, connect(t, NewDatabase(t)), "SELECT 1")
}

func TestWithDatabase(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://llmcost@/postgres?host=/tmp/x/run&port=5432&sslmode=disable", "postgres://llmcost@/db1?host=/tmp/x/run&port=5432&sslmode=disable"},
		{"postgresql://u:p@h:5433/other?sslmode=require", "postgresql://u:p@h:5433/db1?sslmode=require"},
		{"host=h user=u", "host=h user=u dbname=db1"},
	} {
		if got := withDatabase(c.in, "db1"); got != c.want {
			t.Errorf("withDatabase(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
