package bench

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/timings"
)

// Timing shape: each report and range is warmed up, then timed this many
// times, one request after another.
const (
	timedRuns  = 50
	warmupRuns = 3
)

// ranges are the windows every report is timed over.
var ranges = []string{"24h", "7d", "90d"}

// report is one timed endpoint; issue selects its p95 target (9: the spend
// reports', 10: the run reports', sustained_print_test.go).
type report struct {
	path  string
	issue int
}

// reports are the spend reports and the run reports.
// One that answers 404 is not served by this build and is listed as such.
var reports = []report{
	{"/v1/analytics/overview", 9}, {"/v1/analytics/agents", 9}, {"/v1/analytics/models", 9},
	{"/v1/analytics/timeseries", 9}, {"/v1/analytics/full", 9},
	{"/v1/analytics/by/user", 9}, {"/v1/analytics/by/session", 9}, {"/v1/analytics/by/workflow", 9},
	{"/v1/analytics/by/tool", 9}, {"/v1/analytics/by/model", 9}, {"/v1/analytics/by/agent", 9},
	{"/v1/analytics/by/billing", 9}, {"/v1/analytics/cache", 9},
	{"/v1/analytics/workflows", 10}, {"/v1/analytics/workflows/steps", 10}, {"/v1/analytics/workflows/tools", 10},
	{"/v1/analytics/workflows/outcomes", 10}, {"/v1/analytics/traces", 10},
	{"/v1/analytics/workflows/distribution", 10}, {"/v1/analytics/workflows/repeated-work", 10},
}

// tagDim is the bench project's declared tag as a dimension, and
// tagFilter one of its values as a report filter (benchdata.TagKey).
var tagDim, tagFilter = "tag." + benchdata.TagKey, url.Values{"tag." + benchdata.TagKey: {benchdata.TeamName(0)}}

// timing is one report's p50 and p95 per range; served is false when the
// build has no such endpoint.
type timing struct {
	name   string
	served bool
	p50    map[string]time.Duration
	p95    map[string]time.Duration
}

// timeReports times every report over every range, plain and narrowed to
// one agent, then by the declared tag, and every report and the agents
// summary narrowed to one of its values.
func timeReports(b *testing.B, srv *llmcost, key, agent string) []timing {
	var out []timing
	for _, narrow := range []string{"", agent} {
		for _, rep := range reports {
			name := strings.TrimPrefix(rep.path, "/v1/analytics/")
			q := url.Values{}
			if narrow != "" {
				name += " ?agent_name"
				q.Set("agent_name", narrow)
			}
			out = append(out, timeRanges(b, srv, key, name, rep.path, q))
		}
	}
	out = append(out, timeRanges(b, srv, key, "by/"+tagDim, "/v1/analytics/by/"+tagDim, url.Values{}))
	for _, rep := range reports {
		out = append(out, timeRanges(b, srv, key, strings.TrimPrefix(rep.path, "/v1/analytics/")+" ?"+tagDim,
			rep.path, tagFilter))
	}
	out = append(out, timeRanges(b, srv, key, "agents/summary ?"+tagDim, "/v1/analytics/agents/summary", tagFilter))
	return out
}

// timeRanges times one report with the parameters q over every range.
func timeRanges(b *testing.B, srv *llmcost, key, name, path string, q url.Values) timing {
	t := timing{name: name, served: true, p50: map[string]time.Duration{}, p95: map[string]time.Duration{}}
	for _, rng := range ranges {
		q := maps.Clone(q)
		q.Set("range", rng)
		p50, p95, served := timeOne(b, srv, key, path+"?"+q.Encode())
		if !served {
			t.served = false
			break
		}
		t.p50[rng], t.p95[rng] = p50, p95
	}
	return t
}

// timeOne warms one request up and times it timedRuns times; false when the
// endpoint answers 404 (not in this build).
func timeOne(b *testing.B, srv *llmcost, key, path string) (p50, p95 time.Duration, served bool) {
	for range warmupRuns {
		status, raw, err := srv.do("GET", path, key, nil)
		if err == nil && status == http.StatusNotFound {
			return 0, 0, false
		}
		if err != nil || status != http.StatusOK {
			b.Fatalf("GET %s: %d %v %.300s", path, status, err, raw)
		}
	}
	took := make([]time.Duration, timedRuns)
	for i := range took {
		start := time.Now()
		status, raw, err := srv.do("GET", path, key, nil)
		took[i] = time.Since(start)
		if err != nil || status != http.StatusOK {
			b.Fatalf("GET %s: %d %v %.300s", path, status, err, raw)
		}
	}
	slices.Sort(took)
	return timings.Percentile(took, 50), timings.Percentile(took, 95), true
}

// timeTraceDetail times one run's trace detail (no range): p50
// and p95, or served false when the build has no such endpoint.
func timeTraceDetail(b *testing.B, srv *llmcost, key, traceID string) timing {
	t := timing{name: "traces/{trace_id}", p50: map[string]time.Duration{}, p95: map[string]time.Duration{}}
	t.p50[""], t.p95[""], t.served = timeOne(b, srv, key, "/v1/analytics/traces/"+url.PathEscape(traceID))
	return t
}

// printTable writes timings as a Markdown table headed title, one column
// per range of rs, p50 / p95 in ms ("–" where a report has no such range),
// and names the reports this build does not serve.
func printTable(title string, rs []string, ts []timing) {
	fmt.Printf("\n| %s | %s |\n|---|%s\n", title, strings.Join(rs, " p50 / p95 (ms) | ")+" p50 / p95 (ms)",
		strings.Repeat("---|", len(rs)))
	var missing []string
	for _, t := range ts {
		if !t.served {
			missing = append(missing, t.name)
			continue
		}
		fmt.Printf("| %s |", t.name)
		for _, r := range rs {
			if _, ok := t.p50[r]; !ok {
				fmt.Printf(" – |")
				continue
			}
			fmt.Printf(" %s / %s |", ms(t.p50[r]), ms(t.p95[r]))
		}
		fmt.Println()
	}
	if len(missing) > 0 {
		fmt.Printf("\nnot served by this build (404): %s\n", strings.Join(missing, ", "))
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

// edgeNote says how many minutes of calls each timed window read from raw
// events, between start and end (docs/analytics.md "Reads"). Every report
// reads its first partial hour the cheaper way round: the calls from the
// window's start to the next whole hour, or the hour's rollup rows less the
// calls before the start, whichever are fewer minutes (at 12:05 five, at
// 12:55 five); its last partial hour is the hour's rollup rows less the
// calls stamped after now (none). A tag read too, and one narrowed to an
// agent (per-agent hourly rows of every dimension, migration 0045).
func edgeNote(start, end, anchor time.Time) string {
	cheaper := func(t time.Time) int { return min(t.Minute(), 60-t.Minute()) }
	return fmt.Sprintf("\nreports timed %s–%s UTC: minutes of calls read raw by a report, at a window's first partial hour "+
		"(the fewer of those before and after its start; the last partial hour is its rollup rows): %d at the start, %d at the end "+
		"(the dataset ends at its anchor, %s)", start.Format("15:04"), end.Format("15:04"),
		cheaper(start), cheaper(end), anchor.UTC().Format("15:04"))
}
