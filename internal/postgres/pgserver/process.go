package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// spawn starts postgres in its own process group, so a Ctrl-C aimed at us
// does not shut it down before we have drained our own work.
func (s *Server) spawn(bin binaries, owner owner) error {
	args := []string{
		"-D", s.pgdata, "-k", s.socketDir, "-p", port,
		"-c", "listen_addresses=",
		"-c", "unix_socket_permissions=0700",
	}
	settings := map[string]string{}
	if s.opts.NoFsync {
		settings["fsync"] = "off"
		settings["full_page_writes"] = "off"
	}
	for k, v := range s.opts.Settings {
		settings[k] = v
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-c", k+"="+settings[k])
	}
	cmd := exec.Command(bin.postgres, args...)
	cmd.Dir = s.pgdata
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = s.logFile, s.logFile
	cmd.SysProcAttr = sysProcAttr(owner.cred())
	s.cmd = cmd
	s.done = make(chan struct{}) // fresh for each attempt: a failed one closed its own

	// Pdeathsig fires when the forking OS thread exits, not the process, so
	// the thread that starts postgres stays locked until postgres is gone.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("pgserver: starting %s: %w", bin.postgres, err)
	}
	return nil
}

// waitReady polls until a connection over the socket succeeds, then creates
// the application database.
func (s *Server) waitReady(ctx context.Context) error {
	admin := s.urlFor("postgres")
	for {
		attempt, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(attempt, admin)
		cancel()
		if err == nil {
			defer conn.Close(context.Background())
			return createDatabase(ctx, conn, Database)
		}
		select {
		case <-s.done:
			return fmt.Errorf("pgserver: postgres exited during startup (%v)", s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("pgserver: postgres not ready after %s: %w (last error: %v)", s.opts.StartTimeout, ctx.Err(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func createDatabase(ctx context.Context, conn *pgx.Conn, name string) error {
	var exists bool
	err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err == nil && !exists {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	}
	if err != nil {
		return fmt.Errorf("pgserver: creating database %s: %w", name, err)
	}
	return nil
}

// Stop asks postgres for a fast shutdown (SIGINT: abort sessions, checkpoint)
// and waits for it. If it has not exited when ctx ends or after 30s, the
// whole process group is killed. Calling Stop again returns the first result.
func (s *Server) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.stop(ctx) })
	return s.stopErr
}

func (s *Server) stop(ctx context.Context) error {
	defer s.logFile.Close()
	if s.shortDir {
		// Only removes the directory once postgres has removed its socket.
		defer os.Remove(s.socketDir)
	}
	select {
	case <-s.done:
		return fmt.Errorf("pgserver: postgres had already exited: %v", s.waitErr)
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	timer := time.NewTimer(defaultStopTimeout)
	defer timer.Stop()
	select {
	case <-s.done:
		if s.waitErr != nil {
			return fmt.Errorf("pgserver: postgres exited with %v", s.waitErr)
		}
		s.log.Info("postgres: stopped", "pid", s.PID())
		return nil
	case <-ctx.Done():
	case <-timer.C:
	}
	s.kill()
	return errors.New("pgserver: postgres did not shut down in time; killed")
}

// kill SIGKILLs the postmaster's process group (it and its backends) and
// waits for the postmaster to be reaped.
func (s *Server) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}
