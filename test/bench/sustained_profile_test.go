package bench

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// envSustainedStatements, set to 1, loads pg_stat_statements into the
// bench's PostgreSQL and prints the statements that took the server's time
// while A streamed: where a merged call's cost goes.
const envSustainedStatements = "LLMCOST_BENCH_SUSTAINED_STATEMENTS"

// envSustainedExplain, set to a number of milliseconds, loads auto_explain
// into the bench's PostgreSQL: every statement slower than that has its
// plan, with actual rows, times and buffers, in the cluster's
// postgres.log, to tell what a slow read during the stream did.
const envSustainedExplain = "LLMCOST_BENCH_SUSTAINED_EXPLAIN"

// sustainedSettings are serverSettings, with pg_stat_statements preloaded
// when asked for.
func sustainedSettings() map[string]string {
	s := maps.Clone(serverSettings)
	if os.Getenv(envSustainedStatements) == "1" {
		s["shared_preload_libraries"] = "pg_stat_statements"
		s["pg_stat_statements.track"] = "all"
	}
	if ms := os.Getenv(envSustainedExplain); ms != "" {
		s["shared_preload_libraries"] = strings.Trim(s["shared_preload_libraries"]+",auto_explain", ",")
		s["auto_explain.log_min_duration"] = ms
		s["auto_explain.log_analyze"] = "on"
		s["auto_explain.log_buffers"] = "on"
		s["auto_explain.log_timing"] = "off"
	}
	return s
}

// statementProfile resets pg_stat_statements (creating it first) and
// answers a function that reads the top statements by total time since.
// Both are no-ops unless envSustainedStatements is 1.
func statementProfile(dbURL string) (reset func(), read func() []string) {
	if os.Getenv(envSustainedStatements) != "1" {
		return func() {}, func() []string { return nil }
	}
	ctx := context.Background()
	exec := func(sql string) ([]string, error) {
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			return nil, err
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, sql)
		if err != nil {
			return nil, err
		}
		var out []string
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return nil, err
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = fmt.Sprint(v)
			}
			out = append(out, strings.Join(parts, " | "))
		}
		return out, rows.Err()
	}
	reset = func() {
		if _, err := exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
			fmt.Println("pg_stat_statements:", err)
		}
		if _, err := exec(`SELECT pg_stat_statements_reset()`); err != nil {
			fmt.Println("pg_stat_statements:", err)
		}
	}
	read = func() []string {
		out, err := exec(`SELECT round(total_exec_time/1000)::bigint AS s, calls, (total_exec_time/calls)::float8::numeric(12,2)::text AS ms_per_call,
    rows, regexp_replace(left(query, 160), '\s+', ' ', 'g')
FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25`)
		if err != nil {
			return []string{err.Error()}
		}
		return out
	}
	return reset, read
}

// cpuTicks reads /proc/stat's busy and total jiffies across all cores, and
// pid's user+system jiffies from /proc/<pid>/stat: how the cores were
// shared between llmcost, the bench and the rest (PostgreSQL).
type cpuTicks struct{ busy, total, server int64 }

func readCPUTicks(pid int) cpuTicks {
	var t cpuTicks
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line)
		for i, v := range f[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			t.total += n
			if i != 3 && i != 4 { // idle, iowait
				t.busy += n
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 12 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				st, _ := strconv.ParseInt(f[12], 10, 64)
				t.server = u + st
			}
		}
	}
	return t
}

// cpuShare is the cores' use between two readings, in cores: the whole
// machine's busy time and llmcost's, over the wall time between them.
func cpuShare(a, b cpuTicks, wall time.Duration) (busyCores, serverCores float64) {
	const hz = 100 // USER_HZ
	secs := wall.Seconds()
	if secs <= 0 {
		return 0, 0
	}
	return float64(b.busy-a.busy) / hz / secs, float64(b.server-a.server) / hz / secs
}
