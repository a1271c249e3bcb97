package pgserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// templateDir is shared by tests that do not measure initdb itself.
var templateDir string

func TestMain(m *testing.M) {
	if os.Getenv("PGSERVER_TEST_ORPHAN") != "" {
		orphanHelper()
		return
	}
	dir, err := os.MkdirTemp("", "pgserver-template-")
	if err != nil {
		panic(err)
	}
	_ = os.Chmod(dir, 0o711)
	templateDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tempDir returns a directory the unprivileged postgres account can enter
// (t.TempDir is 0700, which only root could).
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgserver-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

func stop(t *testing.T, s *Server) {
	t.Helper()
	pid := s.PID()
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Setpgid made the postmaster a group leader: nothing of it may remain.
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("after Stop, process group %d still exists (kill: %v)", pid, err)
	}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec1(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func countRows(t *testing.T, url string) int {
	t.Helper()
	var n int
	if err := connect(t, url).QueryRow(context.Background(), "SELECT count(*) FROM kv WHERE v = 'kept'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDataPersistsAcrossRestart(t *testing.T) {
	dir := tempDir(t)
	t0 := time.Now()
	s := start(t, Options{DataDir: dir})
	t.Logf("initdb+start (fsync on): %v", time.Since(t0))
	if !strings.Contains(s.URL(), "host="+s.SocketDir()) {
		t.Errorf("URL %q does not name socket dir %q", s.URL(), s.SocketDir())
	}
	conn := connect(t, s.URL())
	exec1(t, conn, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	exec1(t, conn, "INSERT INTO kv VALUES (1, 'kept')")
	conn.Close(context.Background())
	stop(t, s)
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid still there after Stop: %v", err)
	}

	t1 := time.Now()
	s2 := start(t, Options{DataDir: dir})
	t.Logf("restart on existing data dir: %v", time.Since(t1))
	if s2.URL() != s.URL() {
		t.Errorf("URL changed across restart: %q then %q", s.URL(), s2.URL())
	}
	if n := countRows(t, s2.URL()); n != 1 {
		t.Fatalf("after restart: %d rows, want 1", n)
	}
	stop(t, s2)
	if b, err := os.ReadFile(filepath.Join(dir, "postgres.log")); err != nil || !strings.Contains(string(b), "ready to accept connections") {
		t.Errorf("postgres.log lacks the startup message (err %v)", err)
	}
}

func TestStalePostmasterPID(t *testing.T) {
	dir := tempDir(t)
	opts := Options{DataDir: dir, NoFsync: true, TemplateDir: templateDir}
	s := start(t, opts)
	exec1(t, connect(t, s.URL()), "CREATE TABLE kv (k int, v text); INSERT INTO kv VALUES (1, 'kept')")

	// A crash: the whole group dies at once and postmaster.pid stays behind.
	_ = syscall.Kill(-s.PID(), syscall.SIGKILL)
	<-s.Done()
	pidFile := filepath.Join(dir, "pgdata", "postmaster.pid")
	if _, err := os.Stat(pidFile); err != nil {
		t.Fatalf("expected a leftover postmaster.pid: %v", err)
	}
	s = start(t, opts)
	if n := countRows(t, s.URL()); n != 1 {
		t.Fatalf("after crash recovery: %d rows, want 1", n)
	}
	stop(t, s)

	// A PID that is alive but belongs to an unrelated process (PID reuse);
	// postgres alone would refuse to start here.
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"+dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s = start(t, opts)
	if n := countRows(t, s.URL()); n != 1 {
		t.Fatalf("after stale PID: %d rows, want 1", n)
	}

	// A second server on the same directory is refused while the first runs.
	opts.StartTimeout = 500 * time.Millisecond
	if s2, err := Start(context.Background(), opts); err == nil {
		_ = s2.Stop(context.Background())
		t.Fatal("second Start on a running data dir succeeded")
	} else if !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second Start: %v", err)
	}
	stop(t, s)
}

func TestLongDataDir(t *testing.T) {
	dir := filepath.Join(tempDir(t), strings.Repeat("a-rather-long-directory-name/", 5))
	s := start(t, Options{DataDir: dir, NoFsync: true, TemplateDir: templateDir})
	if sock := filepath.Join(s.SocketDir(), ".s.PGSQL."+port); len(sock) > 107 {
		t.Fatalf("socket path too long (%d): %s", len(sock), sock)
	}
	if strings.HasPrefix(s.SocketDir(), dir) {
		t.Fatalf("socket dir %s is inside the long data dir", s.SocketDir())
	}
	fi, err := os.Stat(s.SocketDir())
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir: %v, mode %v", err, fi.Mode())
	}
	exec1(t, connect(t, s.URL()), "SELECT 1")
	stop(t, s)
	if _, err := os.Stat(s.SocketDir()); !os.IsNotExist(err) {
		t.Errorf("short socket dir not removed on Stop: %v", err)
	}
}

func TestTemplateDirSpeedsUpInit(t *testing.T) {
	for i := range 2 { // the first may build the template, the second copies it
		t0 := time.Now()
		s := start(t, Options{DataDir: tempDir(t), NoFsync: true, TemplateDir: templateDir})
		t.Logf("data dir %d: init from template + start: %v", i, time.Since(t0))
		stop(t, s)
	}
}

func TestUntraversableDataDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root drops to another account")
	}
	closed := filepath.Join(tempDir(t), "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{DataDir: filepath.Join(closed, "data")})
	if err == nil || !strings.Contains(err.Error(), "directory "+closed+" is not searchable") {
		t.Fatalf("want an error naming %s, got %v", closed, err)
	}
}

// TestParentDeathStopsServer runs a child that starts a server and exits
// without stopping it; the parent-death signal must take postgres down.
func TestParentDeathStopsServer(t *testing.T) {
	dir := tempDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PGSERVER_TEST_ORPHAN="+dir, "PGSERVER_TEST_TEMPLATE="+templateDir)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("helper ran %v", time.Since(t0))
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("helper output %q", out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("postgres %d still running 10s after its parent died", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func orphanHelper() {
	s, err := Start(context.Background(), Options{
		DataDir: os.Getenv("PGSERVER_TEST_ORPHAN"), NoFsync: true, TemplateDir: os.Getenv("PGSERVER_TEST_TEMPLATE"),
	})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(s.PID())
	os.Exit(0)
}

// TestSharedMemoryInUseMatchesPostgresMessage pins the retry's match to
// the message postgres 15 prints, which names the block mid-sentence.
func TestSharedMemoryInUseMatchesPostgresMessage(t *testing.T) {
	for tail, want := range map[string]bool{
		`FATAL:  pre-existing shared memory block (key 9985812, ID 262149) is still in use`: true,
		`FATAL:  could not create shared memory segment: No space left on device`:           false,
		`FATAL:  lock file "postmaster.pid" already exists`:                                 false,
	} {
		if got := sharedMemoryInUse(tail); got != want {
			t.Errorf("%q: %v, want %v", tail, got, want)
		}
	}
}
