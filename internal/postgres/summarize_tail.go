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
// BRIN index is summarized on its own. A partition's bounds are read back
// from PostgreSQL's text of them, as EventPartitions does (NULL for
// MINVALUE and MAXVALUE), without naming the partition to pg_get_expr:
// it would open, and so lock, every partition (the bounds name no column).
const summarizeTailSQL = `WITH tail AS (
  SELECT min(coalesce(b.min_ts, '0001-01-01 00:00:00+00')) AS first, max(coalesce(b.max_ts, '9999-12-30 00:00:00+00')) AS last
  FROM ingest_batches b WHERE b.tx >= (SELECT watermark FROM rollup_state)
), parts AS (
  SELECT i.inhrelid AS idx, pb = 'DEFAULT' AS dflt,
    (regexp_match(pb, 'FROM \(''([^'']+)''\)'))[1]::timestamptz AS f,
    (regexp_match(pb, 'TO \(''([^'']+)''\)'))[1]::timestamptz AS t
  FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid JOIN pg_class c ON c.oid = x.indrelid
  CROSS JOIN LATERAL pg_get_expr(c.relpartbound, 0) AS pb
  WHERE i.inhparent = 'events_tx_brin'::regclass
)
SELECT coalesce(sum(brin_summarize_new_values(p.idx::regclass)), 0)::bigint
FROM parts p, tail
WHERE p.dflt
  OR ((p.f IS NULL OR p.f < $2::timestamptz) AND (p.t IS NULL OR p.t > $1::timestamptz))
  OR ((p.f IS NULL OR p.f <= tail.last) AND (p.t IS NULL OR p.t > tail.first))`
