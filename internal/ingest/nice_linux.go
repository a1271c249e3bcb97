package ingest

import (
	"os"
	"syscall"
)

// niceThread gives the calling OS thread (which must be locked to its
// goroutine) the nice value n, and reports whether it did. The process's
// main thread is left as it is: its nice value is the one tools show for
// the whole process, and a goroutine that ends locked to it does not end
// it but idles it for good. A value the thread may not take (a lower one
// than it has, unprivileged) leaves it as it is too.
func niceThread(n int) bool {
	tid := syscall.Gettid()
	if tid == os.Getpid() {
		return false
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, tid, n) == nil
}
