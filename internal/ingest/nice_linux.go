package ingest

import "syscall"

// niceThread gives the calling OS thread (which must be locked to its
// goroutine) the nice value n; a value it may not set (a lower one than
// it has, unprivileged) leaves it as it is.
func niceThread(n int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), n)
}
