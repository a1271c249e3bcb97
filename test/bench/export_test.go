package bench

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// exportDays is how much of the dataset's history the calls export
// streams: a week, about 780,000 calls of the 10 M-event project.
const exportDays = 7

// exportResult is one timed calls export.
type exportResult struct {
	rows    int
	took    time.Duration
	resumes int // connections the server's write timeout ended, resumed with the cursor
	rss     rssRange
}

// timeCallsExport streams the last exportDays of the dataset through GET
// /v1/exports/calls as CSV, resuming with the cursor whenever a connection
// ends early (the server's write timeout bounds one connection), and
// samples the server's resident memory meanwhile: the export must run in
// constant memory, a page at a time, however many calls it writes.
func timeCallsExport(b *testing.B, srv *llmcost, key string, anchor time.Time) exportResult {
	res := exportResult{}
	stopRSS := sampleRSS(srv.cmd.Process.Pid)
	q := url.Values{"from": {anchor.Add(-exportDays * 24 * time.Hour).Format(time.RFC3339)}, "to": {anchor.Format(time.RFC3339)}}
	client := &http.Client{Timeout: 10 * time.Minute}
	start := time.Now()
	cursor := ""
	for {
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		n, last, complete := streamExport(b, client, srv.URL+"/v1/exports/calls?"+q.Encode(), key)
		res.rows += n
		if last != "" {
			cursor = last
		}
		if complete {
			break
		}
		res.resumes++
	}
	res.took = time.Since(start)
	res.rss = stopRSS()
	return res
}

// streamExport reads one connection's CSV rows: how many, the last
// complete row's cursor, and whether the stream ended cleanly.
func streamExport(b *testing.B, client *http.Client, u, key string) (int, string, bool) {
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatalf("calls export: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		b.Fatalf("calls export: %d %.300s", resp.StatusCode, raw)
	}
	r := csv.NewReader(bufio.NewReaderSize(resp.Body, 1<<16))
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		b.Fatalf("calls export header: %v", err)
	}
	cursorCol := len(header) - 1
	n, last := 0, ""
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return n, last, true
		}
		if err != nil || len(rec) != len(header) {
			return n, last, false // cut mid-stream: resume after the last whole row
		}
		n++
		last = rec[cursorCol]
	}
}

// rssRange is a process's resident memory before a measurement and its
// peak during it, in bytes; sampled is false where /proc does not say.
type rssRange struct {
	before, peak int64
	sampled      bool
}

// sampleRSS samples the process's resident memory every 50 ms until the
// function it answers is called, which answers the range.
func sampleRSS(pid int) (stop func() rssRange) {
	var r rssRange
	r.before, r.sampled = rss(pid)
	r.peak = r.before
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if v, ok := rss(pid); ok && v > r.peak {
				r.peak = v
			}
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	return func() rssRange {
		close(done)
		wg.Wait()
		return r
	}
}

// rss is a process's resident set size from /proc, in bytes.
func rss(pid int) (int64, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// printExport prints the calls export's throughput and memory.
func printExport(r exportResult) {
	fmt.Printf("\ncalls export (%d days, CSV): %d rows in %s, %.0f rows/s, %d resumed connections",
		exportDays, r.rows, r.took.Round(time.Millisecond), float64(r.rows)/r.took.Seconds(), r.resumes)
	if r.rss.sampled {
		fmt.Printf("; server RSS %.0f MB before, %.0f MB peak", float64(r.rss.before)/(1<<20), float64(r.rss.peak)/(1<<20))
	}
	fmt.Println()
}
