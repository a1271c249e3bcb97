package apiserver

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/postgres"
)

// DELETE /v1/projects/{project_id} answers as it always did, and from its
// answer the project is gone for every caller (its key refused, its routes
// 404, absent from the list) while its rows are still stored: the job
// queued with the deletion removes them, and nothing of another project.
func TestProjectDeleteAnswersBeforeItsRowsGo(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	o, other := e.register("gone"), e.register("kept")
	for p, n := range map[string]int{o.ProjectID: 2000, other.ProjectID: 10} {
		if _, err := e.db.Pool.Exec(ctx, `INSERT INTO events (project_id, event_id, ts, agent_name, model,
			input_tokens, output_tokens, total_tokens, cost_nano, priced)
			SELECT $1, 'e' || i, now(), 'a', 'm', 1, 1, 2, 0, false FROM generate_series(1, $2) i`, p, n); err != nil {
			t.Fatal(err)
		}
	}
	var queued []string
	e.db.EnqueuePurge = func(_ context.Context, _ pgx.Tx, id string) error {
		queued = append(queued, id)
		return nil
	}
	events := func(p string) int {
		var n int
		if err := e.db.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE project_id = $1`, p).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	base := "/v1/projects/" + o.ProjectID
	e.must(e.do("GET", "/v1/projects/me", o.Key, nil), 200)
	d := e.must(e.do("DELETE", base, o.Access, nil), 200)
	if d.str("status") != "deleted" || d.str("project_id") != o.ProjectID || len(d.Body) != 2 {
		t.Fatalf("delete %s", d.Raw)
	}
	if !slices.Equal(queued, []string{o.ProjectID}) {
		t.Fatalf("purges queued %v", queued)
	}
	e.must(e.do("GET", base, o.Access, nil), 404)
	e.must(e.do("GET", base+"/members", o.Access, nil), 404)
	e.must(e.do("PATCH", base, o.Access, map[string]any{"name": "x"}), 404)
	e.must(e.do("DELETE", base, o.Access, nil), 404)
	e.must(e.do("GET", "/v1/projects/me", o.Key, nil), 401)
	e.must(e.do("GET", "/v1/events", o.Key, nil), 401)
	e.must(e.do("POST", "/v1/events/batch", o.Key, map[string]any{"events": []any{}}), 401)
	if l := e.must(e.do("GET", "/v1/projects", o.Access, nil), 200); l.Body["total"] != float64(0) {
		t.Fatalf("projects after delete %s", l.Raw)
	}
	if n := events(o.ProjectID); n != 2000 {
		t.Fatalf("%d of the deleted project's 2000 calls are stored before the purge", n)
	}

	if res, err := e.db.PurgeProject(ctx, o.ProjectID, postgres.PurgeOptions{Chunk: 300}); err != nil || !res.Done {
		t.Fatalf("purge: %+v, %v", res, err)
	}
	if n := events(o.ProjectID); n != 0 {
		t.Fatalf("%d calls left after the purge", n)
	}
	if n := events(other.ProjectID); n != 10 {
		t.Fatalf("the other project has %d calls, want 10", n)
	}
	e.must(e.do("GET", "/v1/projects/me", other.Key, nil), 200)
	e.must(e.do("GET", base, o.Access, nil), 404)
}
