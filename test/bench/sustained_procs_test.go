package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Where the cores went while A streamed, by process: the machine's busy
// time alone does not say whether a read waited behind ingest's server
// processes (nice 19), the mergers' (nice 10), autovacuum, llmcost's own
// decoding, or the benchmark's clients. The sampler reads every process's
// CPU time from /proc once a second and sums, per process, what it used
// between its first and last sighting (from zero for one started
// meanwhile, such as an autovacuum worker: a process that lived less than
// a second between two samples is missed, at most a second's CPU each).
// Every postgres process on the machine is counted, by its nice value and
// title: the breakdown means something only when the benchmark's cluster
// is the only busy one, as for every figure the benchmark prints.

// procGroups are the groups the breakdown prints, in order.
var procGroups = []string{
	"PostgreSQL: ingest's server processes (nice 19)",
	"PostgreSQL: the mergers' server processes (nice 10)",
	"PostgreSQL: other server processes (the reads', nice 0)",
	"PostgreSQL: autovacuum",
	"PostgreSQL: WAL writer, checkpointer, background writer, others",
	"llmcost",
	"the streaming child (the clients)",
	"the benchmark (readers, pollers, sampler)",
	"everything else",
}

// procSample is one process's CPU time and how to group it.
type procSample struct {
	ticks int64
	group string
}

// procSampler follows every process's CPU time until stopped.
type procSampler struct {
	mu     sync.Mutex
	first  map[int]procSample
	last   map[int]procSample
	start  time.Time
	stop   chan struct{}
	done   chan struct{}
	server int
}

// startProcSampler samples every second until stop; server is llmcost's
// pid. The processes already running have their CPU counted from now.
func startProcSampler(server int) *procSampler {
	p := &procSampler{first: map[int]procSample{}, last: map[int]procSample{}, start: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{}), server: server}
	for pid, s := range p.read() {
		p.first[pid], p.last[pid] = s, s
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.sample()
				return
			case <-t.C:
				p.sample()
			}
		}
	}()
	return p
}

// sample takes one reading; a process first seen now counts from zero.
func (p *procSampler) sample() {
	now := p.read()
	p.mu.Lock()
	defer p.mu.Unlock()
	for pid, s := range now {
		if _, ok := p.first[pid]; !ok {
			p.first[pid] = procSample{0, s.group}
		}
		p.last[pid] = s
	}
}

// stopAndSum stops the sampler and answers the cores each group used on
// average, in procGroups' order.
func (p *procSampler) stopAndSum() []float64 {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	secs := time.Since(p.start).Seconds()
	out := make([]float64, len(procGroups))
	for pid, l := range p.last {
		i := slices.Index(procGroups, l.group)
		if d := l.ticks - p.first[pid].ticks; i >= 0 && d > 0 && secs > 0 {
			out[i] += float64(d) / 100 / secs // USER_HZ
		}
	}
	return out
}

// read answers every process's CPU ticks and group.
func (p *procSampler) read() map[int]procSample {
	out := map[int]procSample{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	self := os.Getpid()
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		s := string(raw)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 17 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		nice, _ := strconv.Atoi(f[16])
		out[pid] = procSample{u + st, p.group(pid, self, s[open+1:end], nice, d)}
	}
	return out
}

// group names the group of process pid, whose command is comm.
func (p *procSampler) group(pid, self int, comm string, nice int, dir string) string {
	switch {
	case pid == p.server:
		return procGroups[5]
	case pid == self:
		return procGroups[7]
	case comm != "postgres":
		if env, err := os.ReadFile(dir + "/environ"); err == nil && strings.Contains(string(env), envStreamChild+"=") {
			return procGroups[6]
		}
		return procGroups[8]
	}
	cmd, _ := os.ReadFile(dir + "/cmdline")
	title := string(cmd)
	switch {
	case strings.Contains(title, "autovacuum"):
		return procGroups[3]
	case !strings.Contains(title, "[local]") && !strings.Contains(title, "127.0.0.1") && !strings.Contains(title, "::1"):
		return procGroups[4] // no client address: a background process
	case nice >= 19:
		return procGroups[0]
	case nice > 0:
		return procGroups[1]
	}
	return procGroups[2]
}

// formatProcs prints the breakdown as one line per group.
func formatProcs(cores []float64) string {
	var b strings.Builder
	for i, c := range cores {
		fmt.Fprintf(&b, "| %s | %.2f |\n", procGroups[i], c)
	}
	return b.String()
}
