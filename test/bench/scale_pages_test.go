package bench

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// envScalePages=1 counts the pages every statement reads while the reports
// are timed, at each size (pg_stat_statements, preloaded on the grown
// copy's server), and prints the statements whose pages per call grew
// most. Pages do not depend on the machine's noise, which at a trial's size
// moves report timings by 2× between two runs of the same code: the
// figure to read when a report grows with the history.
const envScalePages = "LLMCOST_BENCH_SCALE_PAGES"

// statementPages is a statement's calls and pages (shared blocks hit and
// read) over one size's report timings.
type statementPages struct {
	query        string
	calls, pages int64
}

// scaleServerSettings are the grown copy's server settings: with
// envScalePages, pg_stat_statements preloaded too.
func scaleServerSettings(b *testing.B) map[string]string {
	s := benchServerSettings(b)
	if os.Getenv(envScalePages) == "1" {
		if p := s["shared_preload_libraries"]; p != "" {
			s["shared_preload_libraries"] = p + ",pg_stat_statements"
		} else {
			s["shared_preload_libraries"] = "pg_stat_statements"
		}
	}
	return s
}

// resetPages starts counting (a no-op without envScalePages).
func (r *scaleRun) resetPages(b *testing.B) {
	if os.Getenv(envScalePages) != "1" {
		return
	}
	ctx := context.Background()
	for _, q := range []string{`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`, `SELECT pg_stat_statements_reset()`} {
		if _, err := r.ds.db.Pool.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v (%s=1 needs the contrib module pg_stat_statements)", q, err, envScalePages)
		}
	}
}

// readPages is what the statements of this database read since
// resetPages, by query id (nil without envScalePages).
func (r *scaleRun) readPages(b *testing.B) map[int64]statementPages {
	if os.Getenv(envScalePages) != "1" {
		return nil
	}
	rows, err := r.ds.db.Pool.Query(context.Background(), `SELECT queryid, query, calls,
  shared_blks_hit + shared_blks_read FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND queryid IS NOT NULL`)
	if err != nil {
		b.Fatal(err)
	}
	out := map[int64]statementPages{}
	var id int64
	var s statementPages
	if _, err := pgx.ForEachRow(rows, []any{&id, &s.query, &s.calls, &s.pages}, func() error {
		out[id] = s
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return out
}

// pagesGrowth is one statement's pages per call at both sizes.
type pagesGrowth struct {
	head         string
	calls        int64
	small, large float64
}

// comparePages lists the statements run at least 5 times at both sizes,
// the largest growth of pages per call first (by ratio, then by pages).
func comparePages(a, z map[int64]statementPages) []pagesGrowth {
	var out []pagesGrowth
	for id, s := range a {
		l, ok := z[id]
		if !ok || s.calls < 5 || l.calls < 5 {
			continue
		}
		out = append(out, pagesGrowth{head: statementHead(s.query), calls: l.calls,
			small: float64(s.pages) / float64(s.calls), large: float64(l.pages) / float64(l.calls)})
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := out[i].large/max(out[i].small, 1), out[j].large/max(out[j].small, 1)
		if ri != rj {
			return ri > rj
		}
		return out[i].large > out[j].large
	})
	return out
}

var (
	sqlComment = regexp.MustCompile(`(?m)^\s*--.*$`)
	sqlSpace   = regexp.MustCompile(`\s+`)
)

// statementHead is a statement's first comment line, when it has one (the
// query files name themselves there), then its SQL without comments, cut
// at 110 bytes, with | escaped for the markdown table.
func statementHead(q string) string {
	first := ""
	for _, l := range strings.Split(q, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "--") {
			first = strings.TrimSpace(strings.TrimPrefix(t, "--"))
			break
		}
	}
	body := strings.TrimSpace(sqlSpace.ReplaceAllString(sqlComment.ReplaceAllString(q, ""), " "))
	if first != "" {
		body = first + " | " + body
	}
	if len(body) > 110 {
		body = body[:110] + "…"
	}
	return strings.ReplaceAll(body, "|", "¦")
}

// printStatementPages prints the 20 statements whose pages per call grew most.
func printStatementPages(a, z map[int64]statementPages) {
	if a == nil || z == nil {
		return
	}
	g := comparePages(a, z)
	fmt.Printf("\n### Pages per call while the reports were timed (%s=1), the 20 that grew most of %d statements\n\n", envScalePages, len(g))
	fmt.Println("| statement | calls at the larger size | pages/call smaller | larger | ratio |")
	fmt.Println("|---|---|---|---|---|")
	for _, p := range g[:min(20, len(g))] {
		fmt.Printf("| %s | %d | %.0f | %.0f | %.2f |\n", p.head, p.calls, p.small, p.large, p.large/max(p.small, 1))
	}
}
