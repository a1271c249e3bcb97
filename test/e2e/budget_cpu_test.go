package e2e

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

// cpuUse is the CPU time used so far by llmcost, by the PostgreSQL
// backends serving its database, and by this process.
type cpuUse struct {
	server, postgres, client time.Duration
	backends                 map[int]time.Duration
}

// cpuNow reads the CPU times from /proc: the llmcost process pid, the
// client backends connected to db's database (pg_stat_activity: not
// autovacuum, which a fresh 10 M-event table keeps busy) and this process.
func cpuNow(b *testing.B, pid int, db *postgres.DB) cpuUse {
	b.Helper()
	u := cpuUse{server: procCPU(b, strconv.Itoa(pid)), client: procCPU(b, "self"), backends: map[int]time.Duration{}}
	rows, err := db.Pool.Query(context.Background(),
		`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			b.Fatal(err)
		}
		u.backends[p] = procCPU(b, strconv.Itoa(p))
		u.postgres += u.backends[p]
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return u
}

// minus is the CPU used between before and u; a backend that started in
// between counts whole, one that ended in between is missed.
func (u cpuUse) minus(before cpuUse) cpuUse {
	d := cpuUse{server: u.server - before.server, client: u.client - before.client}
	for p, t := range u.backends {
		d.postgres += t - before.backends[p]
	}
	return d
}

// procCPU is utime+stime of /proc/<pid>/stat, in clock ticks of 10 ms
// (USER_HZ is 100 on Linux); 0 for a process that has gone.
func procCPU(b *testing.B, pid string) time.Duration {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count fields after ")".
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		b.Fatalf("/proc/%s/stat: %q", pid, s)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%s/stat: %q", pid, s)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
