package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
)

// FullQuery is /v1/analytics/full over all agents: the agent and model sums
// and the time buckets of one window, read in one snapshot. Segments must
// suit the buckets (analytics.Decompose at the grain of BucketWidth);
// KeySegments are the coarsest decomposition of the same window for the
// agent and model sums (days in the middle, as the standalone agents and
// models reports read it). When both are equal (1h, 30d, 90d; zero
// KeySegments means equal) one statement reads the three parts from the
// same rows; otherwise (7d: hourly series, daily keys) two statements do.
type FullQuery struct {
	ProjectID   string
	Segments    analytics.Segments
	KeySegments analytics.Segments
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
// (window.sql with @dims = {agent, model}; each raw event gives a row per
// dimension) and groups them three ways (full.sql); fullKeysSQL groups
// them by key only.
var fullSQL, fullKeysSQL = fullQuery(true), fullQuery(false)

func fullQuery(buckets bool) string {
	window := fillSQL(queryBody("window.sql"), map[string]string{
		"rollup_dim": "dim = ANY(@dims::text[])", "raw_dim": "d.dim", "raw_key": "d.key",
		"raw_from": "events e CROSS JOIN LATERAL (VALUES ('agent', e.agent_name), ('model', e.model)) AS d(dim, key)"})
	parts := map[string]string{"window": window}
	if !buckets {
		parts["buckets"] = ""
	}
	return fillSQL(mustQuery("full.sql"), parts)
}

// ReadFull reads /full's three parts over all agents in one snapshot. With
// one decomposition it is one pass: the watermark, the rollup rows of both
// dimensions, the raw edges and the tail are each read once, where three
// window reads read the agent rows twice and the tail three times. With a
// finer series (7d) the keys are one pass at day grain and the series a
// second statement at hour grain: one pass at hour grain read a week of
// hourly rows of both dimensions, several times the day rows.
func (db *DB) ReadFull(ctx context.Context, q FullQuery) (FullResult, error) {
	var res FullResult
	keySegs := q.KeySegments
	if keySegs == (analytics.Segments{}) {
		keySegs = q.Segments
	}
	onePass := keySegs.Equal(q.Segments)
	err := db.readSnapshot(ctx, q.ProjectID, func(tx pgx.Tx, t tail) error {
		sql, args := fullKeysSQL, windowArgs(q.ProjectID, "", keySegs, t)
		args["dims"] = []string{"agent", "model"}
		if onePass {
			sql, args["bucket_secs"] = fullSQL, q.BucketWidth.Seconds()
		} else {
			series, err := readWindow(ctx, tx, WindowQuery{ProjectID: q.ProjectID, Dim: "agent",
				Segments: q.Segments, BucketWidth: q.BucketWidth}, t)
			if err != nil {
				return err
			}
			res.Points = series.Points
		}
		rows, err := tx.Query(ctx, sql, args)
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
