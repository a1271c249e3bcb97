// Package pgtest gives tests a PostgreSQL server with nothing started by
// hand. A package that needs one calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// and each test takes a database of its own:
//
//	url := pgtest.NewDatabase(t) // dropped when the test ends
//
// Without LLMCOST_TEST_DATABASE_URL, Main runs one private server per test
// binary (pgserver, fsync off) in a fresh temporary directory with its own
// Unix socket, so the binaries that go test ./... runs in parallel never
// share or collide. The directory is on /dev/shm when that is a roomy tmpfs,
// else in os.TempDir, and is removed when the binary ends. A pristine
// cluster is cached in the user's cache directory (os.UserCacheDir()/llmcost/
// pgtest, beside Go's build cache), so only the first binary after a
// PostgreSQL upgrade pays for initdb and a test run leaves nothing in /tmp.
// With the variable set, every binary uses that server instead.
//
// A TestMain with cleanup of its own calls Run instead of Main:
//
//	func TestMain(m *testing.M) {
//		code := pgtest.Run(m)
//		cleanup()
//		os.Exit(code)
//	}
package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres/pgserver"
)

// EnvURL names the variable that points the tests at an existing server.
// Its user must be allowed to create and drop databases.
const EnvURL = "LLMCOST_TEST_DATABASE_URL"

// runPrefix starts the names of per-binary data directories in os.TempDir.
const runPrefix = "llmcost-pgtest-run-"

var state struct {
	sync.Mutex
	main      bool   // Main has been called
	external  bool   // admin came from EnvURL
	admin     string // URL of a maintenance database on the server
	opts      pgserver.Options
	server    *pgserver.Server // nil while stopped or external
	startTook time.Duration    // initdb (or template copy) plus startup, for the logs
}

// Main runs the package's tests against a test server and exits with their
// result. Call it from TestMain, and nothing else there after it: os.Exit
// skips deferred calls.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit: it runs the tests against a test server,
// stops the server and returns the exit code, so that TestMain can clean up
// what it made before it exits.
func Run(m *testing.M) int {
	state.main = true
	if u := os.Getenv(EnvURL); u != "" {
		state.external, state.admin = true, u
		return m.Run()
	}
	base := dataParent()
	sweepStale(base)
	dir, err := os.MkdirTemp(base, runPrefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// MkdirTemp makes it 0700; when we are root, postgres runs as another
	// account that must be able to enter it.
	if err := os.Chmod(dir, 0o711); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		return 1
	}
	state.opts = pgserver.Options{
		DataDir:     dir,
		NoFsync:     true,
		TemplateDir: templateDir(),
		Settings:    map[string]string{"max_connections": "300"},
	}
	t0 := time.Now()
	if err := startLocked(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: starting the test PostgreSQL server: %v\n(or set %s to use an existing server)\n", err, EnvURL)
		return 1
	}
	state.startTook = time.Since(t0)
	state.admin = withDatabase(state.server.URL(), "postgres")

	code := m.Run()

	closeIdleAdmin()
	state.Lock()
	defer state.Unlock()
	if state.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := state.server.Stop(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// startLocked starts the private server; state must be locked or unshared.
func startLocked() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := pgserver.Start(ctx, state.opts)
	if err != nil {
		return err
	}
	state.server = s
	return nil
}

// AdminURL returns the URL of the maintenance database "postgres" on the
// test server, connecting as a superuser. Prefer NewDatabase for anything
// that writes. It panics unless the package's TestMain called Main.
func AdminURL() string {
	state.Lock()
	defer state.Unlock()
	if !state.main {
		panic("pgtest: AdminURL needs pgtest.Main(m) in the package's TestMain")
	}
	return state.admin
}

// StopServer shuts the private test server down (a fast shutdown, as on a
// real outage) until StartServer, or the end of the test, brings it back with
// the same data and the same URLs. Other tests share the server, so a test
// calling it must not call t.Parallel. With LLMCOST_TEST_DATABASE_URL set
// there is no server to stop and the test fails.
func StopServer(t testing.TB) {
	t.Helper()
	requirePrivate(t, "StopServer")
	state.Lock()
	defer state.Unlock()
	if state.server == nil {
		return
	}
	closeIdleAdmin()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := state.server.Stop(ctx)
	state.server = nil
	t.Cleanup(func() { // later tests need the server whatever this one did
		state.Lock()
		defer state.Unlock()
		if state.server == nil {
			if err := startLocked(); err != nil {
				t.Errorf("pgtest: restarting the server after the test: %v", err)
			}
		}
	})
	if err != nil {
		t.Fatalf("pgtest: stopping the server: %v", err)
	}
}

// StartServer starts the private test server again after StopServer; it
// does nothing if the server is running.
func StartServer(t testing.TB) {
	t.Helper()
	requirePrivate(t, "StartServer")
	state.Lock()
	defer state.Unlock()
	if state.server != nil {
		return
	}
	if err := startLocked(); err != nil {
		t.Fatalf("pgtest: starting the server: %v", err)
	}
}

func requirePrivate(t testing.TB, what string) {
	t.Helper()
	state.Lock()
	main, external := state.main, state.external
	state.Unlock()
	if !main {
		t.Fatalf("pgtest: %s needs pgtest.Main(m) in the package's TestMain", what)
	}
	if external {
		t.Fatalf("pgtest: %s needs the private test server, but %s points at an external one; unset it to run this test", what, EnvURL)
	}
}

// dataParent prefers /dev/shm: on tmpfs, CREATE DATABASE takes about a third
// of the time it takes on a disk, even with fsync off. A test server needs
// some 50 MB plus 8 MB per live database; small /dev/shm mounts (64 MB in
// Docker by default) are skipped.
func dataParent() string {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err == nil && uint64(st.Bavail)*uint64(st.Bsize) >= 2<<30 &&
		syscall.Access("/dev/shm", 0o7) == nil {
		return "/dev/shm"
	}
	return os.TempDir()
}

// templateDir is where the pristine cluster is cached: the user's cache
// directory, like Go's build cache, so it survives reboots and never litters
// /tmp. Without a home directory there is no cache and every binary runs
// initdb (slower, but it leaves nothing behind).
func templateDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "llmcost", "pgtest")
}

// sweepStale removes data directories of test binaries that died without
// cleaning up (a -timeout panic, a kill): older than an hour and with no
// live postmaster. Their postgres already went down with them.
func sweepStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, runPrefix+"*"))
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || time.Since(fi.ModTime()) < time.Hour {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, "pgdata", "postmaster.pid")); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if pid, err := strconv.Atoi(line); err == nil && pid > 0 && syscall.Kill(pid, 0) != syscall.ESRCH {
				continue
			}
		}
		_ = os.RemoveAll(d)
	}
}
