package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/analytics"
)

// SummarizeTail summarizes the events' BRIN ranges filled since the last
// call, so the tail reads (reports, the merger) skip them by their summary
// instead of reading every page of an unsummarized range. Autovacuum does
// the same, but only every minute or so. It gives up at once when a vacuum
// holds the table (the lock it needs conflicts), which then summarizes
// them itself.
//
// It summarizes the partitions that merged (a MergeResult's Span) or the
// unmerged tail overlap, and DEFAULT: those are where calls were added
// since, and the only ones a tail read scans. Every partition's index
// would be read whole each second (a cost that grows with the history);
// a back-filled month merged while its summary failed is left to the
// vacuum until the tail reaches it again.
func (db *DB) SummarizeTail(ctx context.Context, merged analytics.Span) error {
	var from, to any
	if !merged.Empty() {
		from, to = merged.Start, merged.End
	}
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '20ms'`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, summarizeTailSQL, from, to)
		return err
	})
	return translate(err, "events")
}

// summarizeTailSQL summarizes the new ranges of the BRIN index of every
// partition of events that overlaps [$1, $2) (NULL: no span) or the
// unmerged tail's logged span, and of DEFAULT, and answers how many ranges
// it summarized. events_tx_brin is a partitioned index: each partition's
// BRIN index is summarized on its own; partitionBounds reads each
// partition's bounds without opening it.
const summarizeTailSQL = `WITH tail AS (
  SELECT ` + loggedSpan + ` FROM ingest_batches WHERE tx >= (SELECT watermark FROM rollup_state)
), parts AS (
  SELECT i.inhrelid AS idx, pb = 'DEFAULT' AS dflt, ` + partitionBounds + `
  FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid JOIN pg_class c ON c.oid = x.indrelid
  CROSS JOIN LATERAL pg_get_expr(c.relpartbound, 0) AS pb
  WHERE i.inhparent = 'events_tx_brin'::regclass
)
SELECT coalesce(sum(brin_summarize_new_values(p.idx::regclass)), 0)::bigint
FROM parts p, tail
WHERE p.dflt
  OR ((p.lo IS NULL OR p.lo < $2::timestamptz) AND (p.hi IS NULL OR p.hi > $1::timestamptz))
  OR ((p.lo IS NULL OR p.lo <= tail.last) AND (p.hi IS NULL OR p.hi > tail.first))`
