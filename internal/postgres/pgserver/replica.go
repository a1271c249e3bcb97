package pgserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// StartReplica starts a streaming replica of primary, a hot standby in
// opts.DataDir with a socket of its own: a base backup of primary
// (pg_basebackup -R -X stream, over primary's socket) becomes its pgdata,
// then postgres starts on it. The primary needs nothing beyond what Start
// gives every server: wal_level replica and max_wal_senders are
// PostgreSQL's defaults, and initdb's --auth=trust admits the socket's
// replication connections. opts.TemplateDir is ignored; a pgdata that
// already holds a cluster is started as it is.
func StartReplica(ctx context.Context, primary *Server, opts Options) (*Server, error) {
	if opts.DataDir == "" {
		return nil, fmt.Errorf("pgserver: Options.DataDir is empty")
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	opts.DataDir, opts.TemplateDir = dataDir, ""
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	pgdata := filepath.Join(dataDir, "pgdata")
	if _, err := os.Stat(filepath.Join(pgdata, "PG_VERSION")); err != nil {
		bctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
		err := baseBackup(bctx, primary, opts, pgdata)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	return Start(ctx, opts)
}

// baseBackup copies primary into pgdata (built in pgdata.init and renamed,
// like a new cluster), set up to follow it.
func baseBackup(ctx context.Context, primary *Server, opts Options, pgdata string) error {
	bin, err := findBinaries()
	if err != nil {
		return err
	}
	o, err := resolveOwner(opts.User)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.DataDir, 0o711); err != nil {
		return fmt.Errorf("pgserver: creating data dir: %w", err)
	}
	tmp := pgdata + ".init"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if err := o.ensurePrivateDir(tmp); err != nil {
		return err
	}
	logFile, err := openLog(filepath.Join(opts.DataDir, "postgres.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	tool := filepath.Join(filepath.Dir(bin.postgres), "pg_basebackup")
	args := []string{"-D", tmp, "-R", "-X", "stream", "-c", "fast", "-h", primary.SocketDir(), "-p", port,
		"-U", SuperUser, "-w"}
	if opts.NoFsync {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = opts.DataDir // our own cwd may not be accessible to the owner
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: o.cred()}
	start, _ := logFile.Seek(0, io.SeekEnd)
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pgserver: %s failed: %w%s", tool, err, logTail(logFile.Name(), start))
	}
	if err := os.Rename(tmp, pgdata); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if opts.Logger != nil {
		opts.Logger.Info("postgres: base backup of the primary taken", "dir", pgdata, "took", time.Since(t0).Round(time.Millisecond))
	}
	return nil
}
