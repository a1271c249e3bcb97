package pgserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// sysProcAttr puts postgres in its own process group and, as a safety net,
// has the kernel send it SIGINT (fast shutdown) if we die without stopping
// it. SIGTERM would be a "smart" shutdown, which waits for every client.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGINT}
}

// servesDir reports whether process pid runs in dir: the postmaster chdirs
// into its data directory. Unreadable means "assume yes", to be safe.
func servesDir(pid int, dir string) bool {
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return errors.Is(err, fs.ErrPermission)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return cwd == dir
}
