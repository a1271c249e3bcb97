//go:build !linux

package pgserver

import "syscall"

// sysProcAttr puts postgres in its own process group; there is no parent
// death signal outside Linux, so postgres outlives a crashed parent there.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}

// servesDir cannot tell without /proc, so a live PID counts as a postgres.
func servesDir(pid int, dir string) bool { return true }
