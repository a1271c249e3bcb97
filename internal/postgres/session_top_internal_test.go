package postgres

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// explainer runs each statement under EXPLAIN ANALYZE first and keeps
// the plan, then runs it for its rows.
type explainer struct {
	pool  rowsQuerier
	plans []string
}

func (e *explainer) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := e.pool.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF) "+sql, args...)
	if err != nil {
		return nil, err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	e.plans = append(e.plans, strings.Join(lines, "\n"))
	return e.pool.Query(ctx, sql, args...)
}

// joinFilterRemoved matches a plan's count of rows a join's filter threw
// away: a join that compared pairs instead of looking keys up.
var joinFilterRemoved = regexp.MustCompile(`Rows Removed by Join Filter: (\d+)`)

// TestSessionRankingProbesSessionsWhateverTheStatistics: with
// rollup_session's statistics taken before the project's sessions were
// merged (as autovacuum leaves them for a minute or more), the session
// ranking still looks each candidate's session up by its key. Joined by
// the planner's choice, it compared every candidate with every session of
// the window (9.7 million comparisons, 1.9 s, in the sustained benchmark).
func TestSessionRankingProbesSessionsWhateverTheStatistics(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.NewDatabase(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	_, p, err := db.Register(ctx, User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_xxxx"},
		Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE rollup_session SET (autovacuum_enabled = false); ANALYZE rollup_session`); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	span := analytics.Span{Start: now.Add(-7 * 24 * time.Hour), End: now}
	// Half the sessions in the window's partial first day (read from the
	// hourly rows: candidates outside rollup_session's inside ones), half
	// in its whole days.
	var calls []event.Event
	for i := range 3000 {
		ts := span.Start.Add(time.Duration(i%600) * time.Second)
		if i%2 == 1 {
			ts = now.Add(-3*24*time.Hour + time.Duration(i)*time.Second)
		}
		calls = append(calls, event.Event{ProjectID: p.ID, EventID: fmt.Sprintf("c%d", i), Timestamp: ts,
			AgentName: "a", Model: "m", InputTokens: 10, OutputTokens: 10, TotalTokens: 20, CostNano: int64(1000 + i),
			Priced: true, Success: true, Billing: "api", Source: "batch", SessionID: fmt.Sprintf("s%d", i)})
	}
	if _, err := db.Write(ctx, calls, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	q := WindowQuery{ProjectID: p.ID, Dim: "session", Limit: 100, Segments: analytics.Decompose(span, analytics.Day)}
	if !useSessionTop(q, segmentsFor(q)) {
		t.Fatal("the query is not the session ranking's")
	}
	e := &explainer{pool: db.Pool}
	res, err := readWindow(ctx, e, q, tail{watermark: math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Keys) != 100 {
		t.Fatalf("%d sessions ranked, want 100", len(res.Keys))
	}
	if len(e.plans) != 1 {
		t.Fatalf("%d statements, want the session ranking's one", len(e.plans))
	}
	for _, m := range joinFilterRemoved.FindAllStringSubmatch(e.plans[0], -1) {
		if n, _ := strconv.Atoi(m[1]); n > len(calls) {
			t.Fatalf("a join compared pairs (%d rows removed by its filter):\n%s", n, e.plans[0])
		}
	}
}
