package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
)

var (
	// A declaration at the top of a .sql file: "--   @name type  what it is".
	paramDecl = regexp.MustCompile(`(?m)^--\s+@([A-Za-z_]\w*)\s+(\S+)`)
	paramUse  = regexp.MustCompile(`@([A-Za-z_]\w*)`)
	comments  = regexp.MustCompile(`(?s)/\*.*?\*/|--[^\n]*`)
	dollarN   = regexp.MustCompile(`\$[0-9]+`)
)

// TestQueryFilesAreValidSQL holds every file of queries/ to the
// convention of docs/architecture.md#sql: no Go template, no numbered
// placeholder, each @name declared at the top with its type and used, and
// the text as written (the markers' defaults) valid SQL: EXPLAIN runs it
// with every parameter a NULL of its declared type.
func TestQueryFilesAreValidSQL(t *testing.T) {
	db := openDB(t)
	files, err := filepath.Glob("queries/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no query files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			if strings.Contains(text, "{{") {
				t.Errorf("a Go template placeholder: use a /* TEMPLATE: name */ marker")
			}
			code := comments.ReplaceAllString(text, " ")
			if n := dollarN.FindString(code); n != "" {
				t.Errorf("numbered placeholder %s: name it (@name)", n)
			}
			types := map[string]string{}
			for _, m := range paramDecl.FindAllStringSubmatch(text, -1) {
				types[m[1]] = m[2]
			}
			used := map[string]bool{}
			for _, m := range paramUse.FindAllStringSubmatch(code, -1) {
				used[m[1]] = true
				if types[m[1]] == "" {
					t.Errorf("@%s is not declared at the top of the file", m[1])
				}
			}
			for name := range types {
				if !used[name] {
					t.Errorf("@%s is declared but not used", name)
				}
			}
			if t.Failed() {
				return
			}
			sql := paramUse.ReplaceAllStringFunc(code, func(m string) string {
				return "(NULL::" + types[m[1:]] + ")"
			})
			if _, err := db.Pool.Exec(context.Background(), "EXPLAIN "+sql); err != nil {
				t.Errorf("EXPLAIN of the file as written: %v", err)
			}
		})
	}
}

// TestReportStatementsExplain EXPLAINs every text the report reads fill
// from the files, with the arguments they send: a marker filled into
// invalid SQL, or a named parameter without its argument (or an argument
// no text names), fails here rather than in a report.
func TestReportStatementsExplain(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	stmts := postgres.ReportStatements(p, time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC))
	names := make([]string, 0, len(stmts))
	for name := range stmts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s := stmts[name]
		if strings.Contains(s.SQL, "TEMPLATE") || strings.Contains(s.SQL, "{{") {
			t.Errorf("%s: a marker left unfilled", name)
		}
		if _, err := db.Pool.Exec(context.Background(), "EXPLAIN "+s.SQL, s.Args); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRunReadsEveryFilter runs each run report read, whose texts are
// filled per request, with and without an agent and a workflow, over a
// window with whole days and partial edges: every combination of markers
// and named arguments must be one the server accepts.
func TestRunReadsEveryFilter(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	end := time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)
	for _, agent := range []string{"", "a1"} {
		for _, wf := range []bool{false, true} {
			for _, limit := range []int{0, 5} {
				q := postgres.RunQuery{ProjectID: p, Start: end.Add(-72 * time.Hour), End: end, AgentName: agent,
					Workflow: "w1", HasWorkflow: wf, Limit: limit}
				reads := map[string]func() error{
					"WorkflowRows": func() error { _, err := db.WorkflowRows(ctx, q); return err },
					"StepRows":     func() error { _, err := db.StepRows(ctx, q); return err },
					"ToolRows":     func() error { _, err := db.ToolRows(ctx, q); return err },
					"ToolRowsPerWorkflow": func() error {
						_, err := db.ToolRowsPerWorkflow(ctx, q)
						return err
					},
					"RepeatRows":    func() error { _, err := db.RepeatRows(ctx, q); return err },
					"RunCosts":      func() error { _, err := db.RunCosts(ctx, q); return err },
					"TraceRows":     func() error { _, err := db.TraceRows(ctx, q); return err },
					"ReadAgentRuns": func() error { _, err := db.ReadAgentRuns(ctx, q); return err },
					"ReadAgentFacts": func() error {
						_, err := db.ReadAgentFacts(ctx, p, agent, []string{"a1", "a2"}, q.Start, q.End)
						return err
					},
				}
				for name, read := range reads {
					if err := read(); err != nil {
						t.Errorf("%s agent=%q workflow=%v limit=%d: %v", name, agent, wf, limit, err)
					}
				}
			}
		}
	}
}
