// Package pgbouncertest starts a private PgBouncer for tests, in front of a
// test database (pgtest): the binary of the Debian package pgbouncer
// (scripts/ensure-pgbouncer installs it for make test), on a free loopback
// port, in transaction pooling mode, from an ini and a user list written in
// the test's temporary directory. Its admin console (SHOW POOLS, SHOW
// STATS) is reachable through AdminURL.
package pgbouncertest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Bouncer is a running PgBouncer.
type Bouncer struct {
	// URL reaches the database through the pooler (transaction pooling),
	// as the same user.
	URL string
	// AdminURL reaches the admin console (the pseudo-database pgbouncer).
	AdminURL string
	// Log is PgBouncer's log file.
	Log string
}

// Options are the pool's limits.
type Options struct {
	// PoolSize is default_pool_size: server connections per database and
	// user. MaxClients is max_client_conn.
	PoolSize, MaxClients int
	// Extra lines appended to the [pgbouncer] section.
	Extra []string
}

// Start runs PgBouncer in front of the database of dbURL (a pgtest URL,
// over a Unix socket) until the test ends.
func Start(t testing.TB, dbURL string, o Options) *Bouncer {
	t.Helper()
	bin := binary(t)
	cfg, err := pgconn.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is private to us, and PgBouncer may run as
	// another account (asServerUser).
	dir, err := os.MkdirTemp("", "llmcost-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	if o.MaxClients == 0 {
		o.MaxClients = 1000
	}
	server := fmt.Sprintf("%s = host=%s port=%d user=%s", cfg.Database, cfg.Host, cfg.Port, cfg.User)
	if cfg.Password != "" { // LLMCOST_TEST_DATABASE_URL's server may want one
		server += " password=" + cfg.Password
	}
	ini := []string{"[databases]", server,
		"[pgbouncer]",
		"listen_addr = 127.0.0.1", "listen_port = " + port, "unix_socket_dir =",
		"auth_type = trust", "auth_file = " + filepath.Join(dir, "userlist.txt"),
		"admin_users = " + cfg.User, "stats_users = " + cfg.User,
		"pool_mode = transaction",
		"default_pool_size = " + strconv.Itoa(o.PoolSize), "min_pool_size = 0", "reserve_pool_size = 0",
		"max_client_conn = " + strconv.Itoa(o.MaxClients),
		"logfile = " + filepath.Join(dir, "pgbouncer.log"), "pidfile = " + filepath.Join(dir, "pgbouncer.pid"),
	}
	ini = append(ini, o.Extra...)
	write(t, filepath.Join(dir, "pgbouncer.ini"), strings.Join(ini, "\n")+"\n")
	write(t, filepath.Join(dir, "userlist.txt"), fmt.Sprintf("%q \"\"\n", cfg.User))
	cmd := exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	cmd.SysProcAttr = asServerUser(t, dir)
	if out, err := os.Create(filepath.Join(dir, "stderr")); err == nil {
		cmd.Stdout, cmd.Stderr = out, out
		t.Cleanup(func() { out.Close() })
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	q := url.Values{"host": {"127.0.0.1"}, "port": {port}, "sslmode": {"disable"}}
	b := &Bouncer{
		URL:      "postgres://" + cfg.User + "@/" + url.PathEscape(cfg.Database) + "?" + q.Encode(),
		AdminURL: "postgres://" + cfg.User + "@/pgbouncer?" + q.Encode() + "&default_query_exec_mode=simple_protocol",
		Log:      filepath.Join(dir, "pgbouncer.log"),
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			return b
		}
	}
	out, _ := os.ReadFile(filepath.Join(dir, "stderr"))
	t.Fatalf("pgbouncer did not start: %s", out)
	return nil
}

// binary is LLMCOST_PGBOUNCER, else pgbouncer on PATH or in /usr/sbin.
func binary(t testing.TB) string {
	if b := os.Getenv("LLMCOST_PGBOUNCER"); b != "" {
		return b
	}
	if b, err := exec.LookPath("pgbouncer"); err == nil {
		return b
	}
	if _, err := os.Stat("/usr/sbin/pgbouncer"); err == nil {
		return "/usr/sbin/pgbouncer"
	}
	t.Fatal("pgbouncer is not installed: run scripts/ensure-pgbouncer (or apt-get install pgbouncer)")
	return ""
}

// asServerUser runs PgBouncer, which refuses root, as the account the
// test PostgreSQL runs as (pgserver's choice: postgres, else nobody), which
// may also enter the server's socket directory.
func asServerUser(t testing.TB, dir string) *syscall.SysProcAttr {
	if os.Geteuid() != 0 {
		return nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Chown(p, uid, gid)
		}); err != nil {
			t.Fatal(err)
		}
		return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	t.Fatal("running as root, and no postgres or nobody account to run pgbouncer as")
	return nil
}

func write(t testing.TB, path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Pool is one row of SHOW POOLS.
type Pool struct {
	Database, User                      string
	ClientActive, ClientWaiting         int
	ServerActive, ServerIdle, ServerUse int
	ServerUsed, ServerTested, ServerLog int
	MaxWait                             int
}

// Servers is every server connection of the pool of database (active,
// idle, used, tested, logging in) that SHOW POOLS lists.
func (p Pool) Servers() int {
	return p.ServerActive + p.ServerIdle + p.ServerUsed + p.ServerTested + p.ServerLog
}

// Pools reads SHOW POOLS on the admin console.
func (b *Bouncer) Pools(ctx context.Context) ([]Pool, error) {
	rows, err := b.show(ctx, "SHOW POOLS")
	if err != nil {
		return nil, err
	}
	var out []Pool
	for _, r := range rows {
		out = append(out, Pool{Database: r["database"], User: r["user"],
			ClientActive: atoi(r["cl_active"]), ClientWaiting: atoi(r["cl_waiting"]),
			ServerActive: atoi(r["sv_active"]), ServerIdle: atoi(r["sv_idle"]), ServerUsed: atoi(r["sv_used"]),
			ServerTested: atoi(r["sv_tested"]), ServerLog: atoi(r["sv_login"]), MaxWait: atoi(r["maxwait"])})
	}
	return out, nil
}

// Show runs an admin console command (SHOW STATS, SHOW SERVERS …) and
// returns its rows by column name.
func (b *Bouncer) Show(ctx context.Context, command string) ([]map[string]string, error) {
	return b.show(ctx, command)
}

func (b *Bouncer) show(ctx context.Context, command string) ([]map[string]string, error) {
	conn, err := pgx.Connect(ctx, b.AdminURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	res, err := conn.PgConn().Exec(ctx, command).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, r := range res {
		for _, row := range r.Rows {
			m := map[string]string{}
			for i, f := range r.FieldDescriptions {
				m[f.Name] = string(row[i])
			}
			out = append(out, m)
		}
	}
	return out, nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// Backends counts the client backends PostgreSQL serves for the database
// of directURL (a URL that bypasses the pooler), this query's own left out.
func Backends(ctx context.Context, directURL string) (int, error) {
	conn, err := pgx.Connect(ctx, directURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`).Scan(&n)
	return n, err
}

// Exec runs sql on directURL's database (ALTER DATABASE … SET …).
func Exec(ctx context.Context, directURL, sql string) error {
	conn, err := pgx.Connect(ctx, directURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}
