package pgserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ensureCluster makes sure pgdata holds a cluster. A new one is built in
// pgdata.init and renamed into place, so a crash midway never leaves a
// half-initialised pgdata behind. It reports whether it created one.
func (s *Server) ensureCluster(ctx context.Context, bin binaries, o owner) (bool, error) {
	if _, err := os.Stat(filepath.Join(s.pgdata, "PG_VERSION")); err == nil {
		return false, o.chownTree(s.pgdata)
	}
	if entries, err := os.ReadDir(s.pgdata); err == nil && len(entries) > 0 {
		return false, fmt.Errorf("pgserver: %s is not empty but holds no cluster (no PG_VERSION); move it away", s.pgdata)
	}
	_ = os.Remove(s.pgdata) // empty or absent
	tmp := s.pgdata + ".init"
	if err := os.RemoveAll(tmp); err != nil {
		return false, fmt.Errorf("pgserver: %w", err)
	}
	if err := s.initFromTemplate(ctx, bin, o); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, s.pgdata); err != nil {
		return false, fmt.Errorf("pgserver: %w", err)
	}
	if !s.opts.NoFsync {
		syncDir(s.opts.DataDir)
	}
	return true, nil
}

func (s *Server) initdb(ctx context.Context, bin binaries, o owner, dir, cwd string) error {
	if err := o.ensurePrivateDir(dir); err != nil {
		return err
	}
	args := []string{"-D", dir, "-U", SuperUser, "--auth=trust", "-E", "UTF8", "--locale=C"}
	if s.opts.NoFsync || s.opts.TemplateDir != "" {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, bin.initdb, args...)
	cmd.Dir = cwd // our own cwd may not be accessible to the owner
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = s.logFile, s.logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: o.cred()}
	start, _ := s.logFile.Seek(0, io.SeekEnd)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pgserver: %s failed: %w%s", bin.initdb, err, logTail(s.logFile.Name(), start))
	}
	return nil
}

// initFromTemplate fills tmp with a new cluster: a copy of the cached
// pristine one when TemplateDir holds it, else initdb's, which is then
// cached for the next time. initdb always runs inside DataDir, which the
// server's account can reach, so TemplateDir may be private to us (a home
// directory's cache, when we are root and postgres runs as another account).
func (s *Server) initFromTemplate(ctx context.Context, bin binaries, o owner) error {
	tmp := s.pgdata + ".init"
	if s.opts.TemplateDir == "" {
		return s.initdb(ctx, bin, o, tmp, s.opts.DataDir)
	}
	cached, err := s.templatePath(bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(cached, "PG_VERSION")); err == nil {
		if err := copyTree(cached, tmp); err != nil {
			return fmt.Errorf("pgserver: copying cluster template: %w", err)
		}
		return o.chownTree(tmp)
	}
	if err := s.initdb(ctx, bin, o, tmp, s.opts.DataDir); err != nil {
		return err
	}
	if err := saveTemplate(tmp, cached); err != nil {
		s.log.Warn("postgres: caching the initialised cluster failed; the next start runs initdb again", "error", err)
	}
	return nil
}

// templatePath returns where the pristine cluster for these binaries is
// cached, creating TemplateDir. The name depends on the postgres binary, so
// an upgrade makes a new one.
func (s *Server) templatePath(bin binaries) (string, error) {
	key := bin.postgres
	if fi, err := os.Stat(bin.postgres); err == nil {
		key += fmt.Sprintf("|%d|%d", fi.Size(), fi.ModTime().UnixNano())
	}
	sum := sha256.Sum256([]byte("v1|" + key))
	if err := os.MkdirAll(s.opts.TemplateDir, 0o700); err != nil {
		return "", fmt.Errorf("pgserver: %w", err)
	}
	// The cached cluster is copied into every new data directory, so nobody
	// else may be able to plant one.
	if fi, err := os.Lstat(s.opts.TemplateDir); err != nil {
		return "", fmt.Errorf("pgserver: %w", err)
	} else if st, ok := fi.Sys().(*syscall.Stat_t); !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("pgserver: template dir %s must be a directory of ours that nobody else can write", s.opts.TemplateDir)
	}
	return filepath.Join(s.opts.TemplateDir, "cluster-"+hex.EncodeToString(sum[:8])), nil
}

// saveTemplate copies a fresh cluster to dst; concurrent savers race
// harmlessly through an atomic rename.
func saveTemplate(src, dst string) error {
	tmp := filepath.Join(filepath.Dir(dst), "tmp-"+rand.Text())
	defer os.RemoveAll(tmp)
	if err := copyTree(src, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, statErr := os.Stat(filepath.Join(dst, "PG_VERSION")); statErr == nil {
			return nil // another process won the race
		}
		return err
	}
	return nil
}

// copyTree copies a freshly initialised cluster: directories, regular files
// and symlinks, keeping permission bits.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			return copyFile(p, target, info.Mode().Perm())
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		f.Close()
	}
}

// maxSocketDir leaves room for "/.s.PGSQL.5432" within sun_path (108 bytes
// including the terminating NUL).
const maxSocketDir = 107 - len("/.s.PGSQL."+port)

// socketDirFor returns DataDir/run, or, when that is too long for a socket
// path, <tmp>/llmcost-<hash of DataDir>; the bool reports the fallback.
func socketDirFor(dataDir string) (string, bool) {
	if d := filepath.Join(dataDir, "run"); len(d) <= maxSocketDir {
		return d, false
	}
	sum := sha256.Sum256([]byte(dataDir))
	name := "llmcost-" + hex.EncodeToString(sum[:8])
	base := os.TempDir()
	if len(base)+1+len(name) > maxSocketDir {
		base = "/tmp"
	}
	return filepath.Join(base, name), true
}

// clearStaleLock removes postmaster.pid (and the socket's lock file) left by
// a postgres that died without cleaning up. Postgres handles a dead PID by
// itself, but not a PID since reused by an unrelated process, which is common
// in containers, where PIDs restart low. A postgres really running in pgdata
// (say, still shutting down after our previous run died) is waited for.
func clearStaleLock(ctx context.Context, pgdata, socketDir string) error {
	pidFile := filepath.Join(pgdata, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if pid < 0 {
		pid = -pid // single-user mode writes a negative PID
	}
	deadline := time.After(10 * time.Second)
	for err == nil && pid > 0 && processAlive(pid) && servesDir(pid, pgdata) {
		select {
		case <-ctx.Done():
		case <-deadline:
		case <-time.After(50 * time.Millisecond):
			continue
		}
		return fmt.Errorf("pgserver: postgres (PID %d) is already running on %s; is another instance using this data directory?", pid, pgdata)
	}
	for _, f := range []string{pidFile, filepath.Join(socketDir, ".s.PGSQL."+port+".lock"), filepath.Join(socketDir, ".s.PGSQL."+port)} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pgserver: removing stale lock: %w", err)
		}
	}
	return nil
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// childEnv drops PG* variables (PGDATA, PGPORT, ...), which would otherwise
// change what initdb and postgres do behind our explicit arguments.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

// openLog opens DataDir/postgres.log for appending, first moving a log over
// 16 MiB to postgres.log.1 so it cannot grow without bound.
func openLog(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 16<<20 {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	return f, nil
}

// logTail returns the end of what was logged since offset, for error messages.
func logTail(path string, offset int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) <= offset {
		return ""
	}
	b = b[offset:]
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "; " + path + " says:\n" + strings.TrimSpace(string(b))
}
