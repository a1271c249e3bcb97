package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
)

// FullQuery is /v1/analytics/full over all agents: the agent and model sums
// and the time buckets of one window, read in one statement. Segments must
// suit the buckets (analytics.Decompose at the grain of BucketWidth), and
// the per-key sums then come from the same rows.
type FullQuery struct {
	ProjectID   string
	Segments    analytics.Segments
	BucketWidth time.Duration
	// Limit caps the models after sorting (0: all).
	Limit int
}

// FullResult is what a FullQuery read: every agent (sorted by cost), the
// models within the limit with the cost of all of them, and the non-empty
// buckets, unordered.
type FullResult struct {
	Agents []analytics.Keyed
	Models WindowResult
	Points []analytics.Point
}

// fullSQL reads the agent and model dimensions in one pass over the window
// (window.sql with $2 = {agent, model}; each raw event gives a row per
// dimension) and groups them three ways (full.sql).
var fullSQL = func() string {
	named := make([]string, len(rollupSums))
	for i, c := range rollupSums {
		named[i] = "sum(" + c + ")::bigint AS " + c
	}
	r := strings.NewReplacer("{{PRE}}", "", "{{DAY_KEYS}}", "true", "{{ROLLUP_DIM}}", "dim = ANY($2::text[])",
		"{{ROLLUP_KEY}}", "key", "{{ROLLUP_AGENT}}", "agent_name = $3",
		"{{RAW_DIM}}", "d.dim", "{{RAW_KEY}}", "d.key",
		"{{RAW_FROM}}", "events e CROSS JOIN LATERAL (VALUES ('agent', e.agent_name), ('model', e.model)) AS d(dim, key)",
		"{{RAW_AGENT}}", "$3::text = ''", "{{SUMS}}", sumList, "{{NAMED_SUMS}}", strings.Join(named, ", "),
		"{{COLS}}", strings.Join(rollupSums, ", "))
	return r.Replace(mustQuery("window.sql") + mustQuery("full.sql"))
}()

// ReadFull reads /full's three parts over all agents in one snapshot and
// one pass: the watermark, the rollup rows of both dimensions, the raw
// edges and the tail are each read once, where three window reads read
// the agent rows twice and the tail three times.
func (db *DB) ReadFull(ctx context.Context, q FullQuery) (FullResult, error) {
	var res FullResult
	err := db.readSnapshot(ctx, func(tx pgx.Tx, watermark int64) error {
		args := append(windowArgs(q.ProjectID, []string{"agent", "model"}, "", q.Segments, watermark),
			q.BucketWidth.Seconds())
		rows, err := tx.Query(ctx, fullSQL, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				dim    string
				key    *string
				bucket *time.Time
				total  *int64
				s      analytics.Sums
			)
			if err := rows.Scan(append(append([]any{&dim, &key, &bucket}, sumDest(&s)...), &total)...); err != nil {
				return err
			}
			switch dim {
			case "agent":
				res.Agents = append(res.Agents, analytics.Keyed{Key: *key, Sums: s})
			case "model":
				res.Models.Keys = append(res.Models.Keys, analytics.Keyed{Key: *key, Sums: s})
				res.Models.AllCostNano = *total
			default:
				res.Points = append(res.Points, analytics.Point{Bucket: bucket.UTC(), Sums: s})
			}
		}
		return rows.Err()
	})
	analytics.SortByCost(res.Agents)
	analytics.SortByCost(res.Models.Keys)
	if q.Limit > 0 && len(res.Models.Keys) > q.Limit {
		res.Models.Keys = res.Models.Keys[:q.Limit]
	}
	return res, err
}
