package postgres

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
)

// A project is deleted in two steps (migration 0033). DeleteProject marks
// it in one short transaction: from its commit no reader reaches it. Its
// rows are then removed by PurgeProject, from a job, in chunks of their
// own short transactions; the project's row goes last. Deleting the row at
// once cascaded through every table in one transaction, which took minutes
// for a project of ten million calls and held its locks all along.
//
// What keeps every reader from a marked project, before its rows go:
//   - its key hash is replaced by a 17-byte value no key hashes to (a
//     key's hash has 32 bytes), and the key lookup also skips marked
//     projects; this instance's key cache is emptied before DeleteProject
//     returns, the others' on the notification of the update (0016, 0033);
//   - its memberships and invitations are deleted, so no session is a
//     member of it: every project route answers 404 and it is in no list;
//   - the reads of a project's own row (ProjectByID, UserProjects,
//     UpdateProject, RotateKey) skip marked projects;
//   - its webhook and notifications are deleted, so no delivery goes out
//     and no user sees its alerts, and its provider connections are never
//     due again, so no sync uses their keys;
//   - the budget cache is emptied.
//
// The mergers may still fold its calls into rollups and runs until the
// purge deletes them: rollups have no foreign key to projects (0024) and
// the project's row exists until the end, so that cannot fail, and the
// purge deletes what they wrote. The purge's last transaction takes the
// rollup merger's lock, then the project's queued marks (which the run
// merger and the alert drain lock before they write), then the row: a
// merger in flight commits first and the row's cascade takes what it wrote.

// EnqueuePurge queues the purge job of a project in tx, the transaction
// that marks it deleted (the job runner's InsertTx); nil purges at once,
// before DeleteProject returns.
type EnqueuePurge func(ctx context.Context, tx pgx.Tx, projectID string) error

// markDeletedSQL marks project $1 deleted at $2 and replaces its key hash
// by 0x00 and its id: unique as the column needs, and of a length no key's
// SHA-256 has.
const markDeletedSQL = `UPDATE projects SET deleted_at = $2, updated_at = $2,
  key_hash = '\x00'::bytea || uuid_send(id)
WHERE id = $1 AND deleted_at IS NULL`

// unreachSQL removes, with the mark, what would let anyone reach a marked
// project or act for it: members and invitations, its notifications, its
// webhook. Its provider connections are parked, so no sync is due; their
// rows go with the purge. Each is a few rows.
var unreachSQL = []string{
	`DELETE FROM memberships WHERE project_id = $1`,
	`DELETE FROM notifications WHERE project_id = $1`,
	`DELETE FROM webhooks WHERE project_id = $1`,
	`UPDATE provider_connections SET next_attempt_at = 'infinity' WHERE project_id = $1`,
}

// DeleteProject deletes a project for every reader at once and queues the
// removal of its rows (PurgeProject) in the same transaction, through
// db.EnqueuePurge; without one it purges before returning. A project that
// does not exist or is already deleted is not_found.
func (db *DB) DeleteProject(ctx context.Context, id string, now time.Time) error {
	var missing bool
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, markDeletedSQL, id, now)
		if err != nil || tag.RowsAffected() == 0 {
			missing = err == nil
			return cmp.Or(err, errNoProject)
		}
		for _, q := range unreachSQL {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		if db.EnqueuePurge != nil {
			return db.EnqueuePurge(ctx, tx, id)
		}
		return nil
	})
	db.dropKeys()
	db.dropBudgets()
	if missing {
		return apierr.New(apierr.NotFound, "project not found")
	}
	if err != nil {
		return translate(err, "project")
	}
	if db.EnqueuePurge == nil {
		_, err = db.PurgeProject(ctx, id, PurgeOptions{})
	}
	return err
}

// DeletedProjects lists the projects marked deleted whose row is still
// there: their purge has not ended.
func (db *DB) DeletedProjects(ctx context.Context) ([]string, error) {
	rows, err := db.Pool.Query(ctx, `SELECT id::text FROM projects WHERE deleted_at IS NOT NULL ORDER BY deleted_at`)
	if err != nil {
		return nil, translate(err, "project")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, translate(err, "project")
}

// DefaultPurgeChunk is how many rows of one table one purge transaction
// deletes: a few hundred milliseconds of work on the calls table, so a
// chunk holds its locks briefly and a failure loses little.
const DefaultPurgeChunk = 10_000

// PurgeOptions bounds a purge.
type PurgeOptions struct {
	// Chunk is the rows per transaction (DefaultPurgeChunk when 0).
	Chunk int
	// MaxChunks stops the purge after that many chunks, unfinished (0:
	// no bound); tests use it to interrupt a purge.
	MaxChunks int
	// Until stops the purge, unfinished, at the first chunk that would
	// start after it, once it deleted a row (zero: no bound), so a job can hand the rest to its
	// next run before its runner takes it for stuck.
	Until time.Time
}

// PurgeResult is what a purge did.
type PurgeResult struct {
	// Rows deleted in Chunks transactions, the project's row not counted.
	Rows   int64
	Chunks int
	// Done: the project's row is gone, and with it every row of the project.
	Done bool
}

// errNoProject rolls back a delete that found no project to delete.
var errNoProject = errors.New("no such project")

// errNotDeleted: PurgeProject was asked for a project nobody deleted.
var errNotDeleted = errors.New("purge: the project is not marked deleted")

// PurgeProject deletes the rows of a project DeleteProject marked: table
// by table (purgeTables), in chunks of opts.Chunk rows, each in its own
// short transaction on the mergers' pool (a lower CPU priority than the
// reads), then the project's row. It can be stopped at any point and run
// again, on any instance: it continues with what is left. A project whose
// row is gone is done; one not marked deleted is refused.
func (db *DB) PurgeProject(ctx context.Context, id string, opts PurgeOptions) (PurgeResult, error) {
	var res PurgeResult
	chunk := cmp.Or(opts.Chunk, DefaultPurgeChunk)
	var marked bool
	err := db.mergePool().QueryRow(ctx, `SELECT deleted_at IS NOT NULL FROM projects WHERE id = $1`, id).Scan(&marked)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		res.Done = true
		return res, nil
	case err != nil:
		return res, translate(err, "project")
	case !marked:
		return res, errNotDeleted
	}
	tables, err := db.purgeTables(ctx)
	if err != nil {
		return res, translate(err, "project")
	}
	for _, t := range tables {
		var after []string // the last key deleted, nil before the first chunk
		for {
			if opts.MaxChunks > 0 && res.Chunks >= opts.MaxChunks ||
				res.Rows > 0 && !opts.Until.IsZero() && time.Now().After(opts.Until) {
				return res, nil
			}
			var c chunkResult
			c, err = db.purgeChunk(ctx, t, id, after, chunk)
			if err != nil {
				return res, translate(err, "project")
			}
			res.Rows, res.Chunks, after = res.Rows+c.deleted, res.Chunks+1, c.last
			if c.taken < int64(chunk) {
				break
			}
		}
	}
	err = pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockState); err != nil {
			return err
		}
		for _, q := range purgeLastSQL {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	res.Done = err == nil
	return res, translate(err, "project")
}

// purgeLastSQL deletes what is left of project $1 and its row, in one
// transaction after the rollup merger's lock (lockState), locking in the
// order the writers do: that lock, then the marks the run merger and the
// alert drain lock before they write rows that reference the project, then
// the row, whose cascade and triggers (0023, 0024) take whatever a writer
// added behind the purge (a batch in flight when the project was marked).
var purgeLastSQL = []string{
	`DELETE FROM runs_pending WHERE project_id = $1`,
	`DELETE FROM alerts_pending WHERE project_id = $1`,
	`DELETE FROM projects WHERE id = $1 AND deleted_at IS NOT NULL`,
}
