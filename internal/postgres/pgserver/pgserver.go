// Package pgserver runs a private PostgreSQL server as a child process.
//
// Everything lives under Options.DataDir:
//
//	pgdata/        the cluster (created with initdb on first start)
//	run/           the Unix socket directory (see below)
//	postgres.log   stderr/stdout of initdb and postgres
//
// The server listens only on a Unix socket (listen_addresses is empty), so
// it never collides with another server on the machine. Unix socket paths
// are limited to about 107 bytes; when DataDir/run is too long for that, the
// socket goes to <tmp>/llmcost-<hash of DataDir> instead, a 0700 directory
// owned by the server's user.
//
// initdb and postgres refuse to run as root. When the current process is root,
// both run as an unprivileged account (Options.User, else "postgres", else
// "nobody"); pgdata and the socket directory are owned by that account, and
// every directory above pgdata must be searchable by it.
//
// Authentication is "trust" for the superuser llmcost: access is controlled
// by the socket directory, which only the server's user (and root) can enter.
package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const (
	// SuperUser is the role initdb creates; the URL connects as it.
	SuperUser = "llmcost"
	// Database is the database Start creates if it is missing.
	Database = "llmcost"
	// port only names the socket file (.s.PGSQL.5432); nothing listens on TCP.
	port = "5432"

	defaultStartTimeout = 60 * time.Second
	defaultStopTimeout  = 30 * time.Second
)

// Options configures Start.
type Options struct {
	// DataDir is the directory the server owns; it is created if missing.
	DataDir string
	// Logger receives progress messages; nil discards them. Postgres's own
	// output goes to DataDir/postgres.log, never to our stdout.
	Logger *slog.Logger
	// StartTimeout bounds initdb plus startup; zero means 60s.
	StartTimeout time.Duration
	// NoFsync turns off fsync and full_page_writes and makes initdb skip
	// syncing. Only for tests: an OS crash may corrupt the cluster. Commits
	// still reach the kernel, so a crash of postgres alone loses nothing.
	NoFsync bool
	// User is the account postgres runs as when we are root. Empty means
	// "postgres" if that account exists, else "nobody". Ignored when not root.
	User string
	// Settings are extra server settings, passed as -c name=value.
	Settings map[string]string
	// TemplateDir, if set, caches a freshly initialised cluster there and
	// copies it instead of running initdb again (about 10x faster). Meant for
	// tests that create many throw-away data directories. Only this process
	// reads and writes it, never the server's account, so it may be private.
	TemplateDir string
}

// Server is a running postgres child process. Stop it with Stop.
type Server struct {
	opts      Options
	log       *slog.Logger
	pgdata    string
	socketDir string
	shortDir  bool // socketDir is the /tmp fallback, removed on Stop
	cmd       *exec.Cmd
	logFile   *os.File

	done    chan struct{} // closed when the process has exited
	waitErr error         // set before done is closed

	stopOnce sync.Once
	stopErr  error
}

// Start initialises DataDir if needed, starts postgres, waits until it accepts
// connections and creates the database "llmcost" if it is absent.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.DataDir == "" {
		return nil, errors.New("pgserver: Options.DataDir is empty")
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	opts.DataDir = dataDir
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	s := &Server{opts: opts, log: opts.Logger, pgdata: filepath.Join(dataDir, "pgdata")}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := s.start(ctx); err != nil {
		if s.logFile != nil {
			s.logFile.Close()
		}
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context) error {
	bin, err := findBinaries()
	if err != nil {
		return err
	}
	owner, err := resolveOwner(s.opts.User)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.opts.DataDir, 0o711); err != nil {
		return fmt.Errorf("pgserver: creating data dir: %w", err)
	}
	if err := owner.checkTraversable(s.opts.DataDir); err != nil {
		return err
	}
	if s.logFile, err = openLog(filepath.Join(s.opts.DataDir, "postgres.log")); err != nil {
		return err
	}
	t0 := time.Now()
	initialised, err := s.ensureCluster(ctx, bin, owner)
	if err != nil {
		return err
	}
	if initialised {
		s.log.Info("postgres: initialised data directory", "dir", s.pgdata, "took", time.Since(t0).Round(time.Millisecond))
	}
	s.socketDir, s.shortDir = socketDirFor(s.opts.DataDir)
	if err := owner.checkTraversable(filepath.Dir(s.socketDir)); err != nil {
		return err
	}
	if err := owner.ensurePrivateDir(s.socketDir); err != nil {
		return err
	}
	if err := clearStaleLock(ctx, s.pgdata, s.socketDir); err != nil {
		return err
	}
	t1 := time.Now()
	for attempt := 1; ; attempt++ {
		logStart, _ := s.logFile.Seek(0, io.SeekEnd)
		if err := s.spawn(bin, owner); err != nil {
			return err
		}
		err := s.waitReady(ctx)
		if err == nil {
			break
		}
		s.kill()
		tail := logTail(s.logFile.Name(), logStart)
		// After a crash the killed backends of the old server may still be
		// exiting and holding its shared memory; postgres refuses to start
		// until they are gone, which takes moments. Its message names the
		// block between the two phrases: "pre-existing shared memory block
		// (key …, ID …) is still in use".
		if attempt < 5 && sharedMemoryInUse(tail) && ctx.Err() == nil {
			time.Sleep(time.Duration(attempt) * 300 * time.Millisecond)
			if err := clearStaleLock(ctx, s.pgdata, s.socketDir); err != nil {
				return err
			}
			continue
		}
		return fmt.Errorf("%w%s", err, tail)
	}
	s.log.Info("postgres: started", "pid", s.PID(), "socket", s.socketDir, "took", time.Since(t1).Round(time.Millisecond))
	return nil
}

// URL returns a pgx/libpq URL for the database "llmcost" over the socket.
func (s *Server) URL() string { return s.urlFor(Database) }

func (s *Server) urlFor(db string) string {
	host := strings.ReplaceAll(url.QueryEscape(s.socketDir), "%2F", "/")
	return "postgres://" + SuperUser + "@/" + url.PathEscape(db) + "?host=" + host + "&port=" + port + "&sslmode=disable"
}

// SocketDir returns the directory holding the server's Unix socket.
func (s *Server) SocketDir() string { return s.socketDir }

// PID returns the process ID of the postmaster.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Done is closed when the postgres process has exited, whether by Stop or
// by a crash.
func (s *Server) Done() <-chan struct{} { return s.done }

// sharedMemoryInUse reports whether a postgres log tail says a crashed
// server's shared memory block is still attached.
func sharedMemoryInUse(tail string) bool {
	return strings.Contains(tail, "pre-existing shared memory block") && strings.Contains(tail, "is still in use")
}
