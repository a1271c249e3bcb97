package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The purge's tables and chunks (PurgeProject). A chunk takes the next
// rows of the project in its table's primary key order, after the last key
// the previous chunk deleted, and deletes them by their addresses (a TID
// scan). Starting each chunk at the project's first key instead walked,
// chunk after chunk, the index entries of every row deleted before (dead
// until vacuum reaches them): the purge of a large project grew with the
// square of its rows. Rows written behind the cursor meanwhile (by a batch
// in flight when the project was marked, or a merger) are left to the
// cascade of the project's row, the purge's last statement.

// purgeTable is one table a purge deletes from.
type purgeTable struct {
	// quoted is the schema-qualified name, name the bare one, root the
	// partitioned table a partition belongs to (else name), which places
	// it in purgeFirst.
	quoted, name, root string
	// referenced: another table's foreign key references this one.
	referenced bool
	// keys are the primary key's columns after project_id (quoted) and
	// their types: the order chunks walk; none when the key does not
	// start with project_id (a small queue's id), then each chunk takes
	// any of the project's rows.
	keys, types []string
}

// purgeTablesSQL lists every table of the schema with a project_id column,
// partitions rather than their partitioned parent (a row address names a
// row of one table only), whether another table's foreign key references
// it, and its primary key's columns: a table added later is purged too,
// with no list to keep.
const purgeTablesSQL = `SELECT format('%I.%I', n.nspname, c.relname), c.relname,
  coalesce((SELECT r.relname FROM pg_class r WHERE r.oid = pg_partition_root(c.oid)), c.relname),
  EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.confrelid = c.oid AND f.conrelid <> c.oid),
  coalesce(k.cols, '{}'), coalesce(k.types, '{}')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'project_id' AND NOT a.attisdropped
LEFT JOIN LATERAL (
  SELECT array_agg(quote_ident(ka.attname) ORDER BY u.ord) AS cols,
    array_agg(format_type(ka.atttypid, ka.atttypmod) ORDER BY u.ord) AS types
  FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS u(attnum, ord)
  JOIN pg_attribute ka ON ka.attrelid = c.oid AND ka.attnum = u.attnum
  WHERE i.indrelid = c.oid AND i.indisprimary
) k ON true
WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> 'projects'`

// purgeFirst are purged first, in this order: the queued work of the
// mergers and the alert drain (so they stop writing for the project), the
// calls (so a merge finds none left to fold), then the run tables'
// children before the runs whose trigger would delete them.
var purgeFirst = []string{"runs_pending", "alerts_pending", "ingest_batches", "events", "outcomes",
	"run_steps", "run_tools", "run_repeats", "runs"}

// purgeTables is the order of the purge: purgeFirst, then the other
// tables, those another table references (provider_connections) after the
// rest, so a chunk's cascade never deletes an unbounded number of children.
func (db *DB) purgeTables(ctx context.Context) ([]purgeTable, error) {
	rows, err := db.mergePool().Query(ctx, purgeTablesSQL)
	if err != nil {
		return nil, err
	}
	ts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (purgeTable, error) {
		var t purgeTable
		err := r.Scan(&t.quoted, &t.name, &t.root, &t.referenced, &t.keys, &t.types)
		if len(t.keys) > 0 && t.keys[0] == "project_id" {
			t.keys, t.types = t.keys[1:], t.types[1:]
		} else {
			t.keys, t.types = nil, nil
		}
		return t, err
	})
	if err != nil {
		return nil, err
	}
	rank := func(t purgeTable) int {
		if i := slices.Index(purgeFirst, t.root); i >= 0 {
			return i
		}
		if t.referenced {
			return len(purgeFirst) + 1
		}
		return len(purgeFirst)
	}
	slices.SortFunc(ts, func(a, b purgeTable) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.name, b.name))
	})
	return ts, nil
}

// chunkSQL deletes up to n rows of project $1 from t, after the key $2 (a
// text array) when after is set, and answers how many rows it took, how
// many it deleted (fewer when another transaction deleted some first) and
// the last key it took, as text.
func (t purgeTable) chunkSQL(after bool, n int) string {
	if len(t.keys) == 0 {
		return fmt.Sprintf(`WITH c AS MATERIALIZED (SELECT ctid AS row_id FROM %[1]s WHERE project_id = $1 LIMIT %[2]d),
d AS (DELETE FROM %[1]s WHERE project_id = $1 AND ctid = ANY(ARRAY(SELECT row_id FROM c)) RETURNING 1)
SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM d), NULL::text[]`, t.quoted, n)
	}
	cols := strings.Join(t.keys, ", ")
	cond := ""
	if after {
		vals := make([]string, len(t.keys))
		for i, typ := range t.types {
			vals[i] = fmt.Sprintf("($2::text[])[%d]::%s", i+1, typ)
		}
		cond = " AND (" + cols + ") > (" + strings.Join(vals, ", ") + ")"
	}
	texts, desc := make([]string, len(t.keys)), make([]string, len(t.keys))
	for i, k := range t.keys {
		texts[i], desc[i] = k+"::text", k+" DESC"
	}
	return fmt.Sprintf(`WITH c AS MATERIALIZED (SELECT ctid AS row_id, %[2]s FROM %[1]s WHERE project_id = $1%[3]s
  ORDER BY %[2]s LIMIT %[4]d),
d AS (DELETE FROM %[1]s WHERE project_id = $1 AND ctid = ANY(ARRAY(SELECT row_id FROM c)) RETURNING 1)
SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM d),
  (SELECT ARRAY[%[5]s] FROM c ORDER BY %[6]s LIMIT 1)`,
		t.quoted, cols, cond, n, strings.Join(texts, ", "), strings.Join(desc, ", "))
}

// chunkResult is what one chunk did.
type chunkResult struct {
	taken, deleted int64
	last           []string
}

// purgeChunkTimeout bounds one chunk: it deletes at most a chunk's rows,
// and waits only for a transaction writing the same project's rows (a
// merge step, an ingest in flight when the project was marked).
const purgeChunkTimeout = "5min"

// purgeChunkSettings bound a chunk's time (purgeChunkTimeout) and plan it
// without sorts: the rows after the cursor are then read through the
// primary key, in its order, and the read stops at the chunk's last row.
// A partition without statistics (filled faster than autovacuum analyzes
// it, as a back-fill or a benchmark's load does) had the planner guess a
// few hundred of the project's rows: it took them all through a bitmap
// scan and sorted them for the chunk's first 10,000, so each chunk read
// the project's every remaining row there and the purge grew with the
// square of its rows (a 200,000-row partition: chunks from 150 ms down to
// 14 ms, 1.2 s in all; planned without sorts, about 15 ms each).
const purgeChunkSettings = "SET LOCAL statement_timeout = '" + purgeChunkTimeout + "'; SET LOCAL enable_sort = off"

// purgeChunk deletes up to n rows of project id from t after the key
// after (nil: from the first), in one transaction. The rows' addresses
// are read in the statement that deletes them, so each names the row
// read (a row updated meanwhile is followed to its new version, of the
// same project). The delete still names the project, as every statement
// does (docs/scale.md), and no address can delete another project's row;
// with the table's statistics PostgreSQL finds the rows by address and
// checks the project on each (an empty or small project's rows it may
// find through the project's index instead, as cheaply).
func (db *DB) purgeChunk(ctx context.Context, t purgeTable, id string, after []string, n int) (chunkResult, error) {
	var res chunkResult
	args := []any{id}
	if after != nil {
		args = append(args, after)
	}
	err := pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, purgeChunkSettings); err != nil {
			return err
		}
		return tx.QueryRow(ctx, t.chunkSQL(after != nil, n), args...).Scan(&res.taken, &res.deleted, &res.last)
	})
	return res, err
}
