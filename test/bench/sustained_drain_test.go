package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// waitDrained polls every 250 ms until every merger's backlog is zero, and
// returns when each got there, measured from start; a merger still behind
// at the timeout is missing from the answer. Health's mergers object is
// read when the build reports it; otherwise the rollups count as drained
// once the watermark passes horizon (taken at the last acknowledgement, so
// every acknowledged call is below it) and the runs and alerts once their
// pending tables are empty.
func waitDrained(srv *llmcost, db *postgres.DB, horizon int64, start time.Time, timeout time.Duration) map[string]time.Duration {
	ctx := context.Background()
	done := map[string]time.Duration{}
	for deadline := time.Now().Add(timeout); len(done) < len(mergerNames) && time.Now().Before(deadline); {
		m, _, fromHealth := healthMergers(srv)
		for _, name := range mergerNames {
			if _, ok := done[name]; ok {
				continue
			}
			var zero bool
			if h, ok := m[name]; fromHealth && ok {
				zero = h.Backlog == 0
			} else {
				zero = sqlDrained(ctx, db, name, horizon)
			}
			if zero {
				done[name] = time.Since(start)
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return done
}

// sqlDrained answers whether one merger has no backlog, by SQL reads of a
// row or two (counting the tail would cost more than the poll is worth).
func sqlDrained(ctx context.Context, db *postgres.DB, name string, horizon int64) bool {
	var zero bool
	var err error
	switch name {
	case "rollups":
		zero, err = db.MergedTo(ctx, horizon)
	case "runs":
		err = db.Pool.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM runs_pending)`).Scan(&zero)
	case "alerts":
		err = db.Pool.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM alerts_pending)`).Scan(&zero)
	}
	return err == nil && zero
}

// copyReference regenerates the first rows calls of spec (at anchor),
// stamped with projectID, and copies them into events in ingestBatch-row
// chunks as the ingest comparison does; only the COPY is timed, not the
// generation. It answers the rows copied and their rate.
func copyReference(b *testing.B, db *postgres.DB, spec benchdata.Spec, rows int, projectID string, anchor time.Time) (int, float64) {
	ctx := context.Background()
	var copied int
	var took time.Duration
	for d := 0; d < spec.Days && copied < rows; d++ {
		events := benchdata.Generate(spec, pricing.Builtin(), projectID, anchor, d).Events
		events = events[:min(len(events), rows-copied)]
		for i := 0; i < len(events); i += ingestBatch {
			t := time.Now()
			if _, err := db.CopyEvents(ctx, events[i:min(i+ingestBatch, len(events))]); err != nil {
				b.Fatal(err)
			}
			took += time.Since(t)
		}
		copied += len(events)
	}
	return copied, float64(copied) / took.Seconds()
}

// dropDatabase drops the run's database, its ten million calls being of no
// use once printed.
func dropDatabase(b *testing.B, serverURL, name string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, withDatabase(serverURL, "postgres"))
	if err != nil {
		b.Errorf("dropping %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		b.Errorf("dropping %s: %v", name, err)
	}
	fmt.Printf("dropped the run's database %s (%s=1 keeps it)\n", name, envSustainedKeep)
}
