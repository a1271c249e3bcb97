package postgres

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// renice gives the local process pid, which must be a postgres process,
// the nice value nice.
func renice(pid uint32, nice int) error {
	comm, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(pid), 10) + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
		return errNotPostgres
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, int(pid), nice)
}
