package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
)

// PurgeQueue is the queue of project purges. It has its own queue of one
// worker per instance: a purge of a large project runs for minutes, and on
// the default queue a few of them would hold every worker that sends mail.
const PurgeQueue = "purge"

// PurgeAttempts bounds the attempts of a purge. Each attempt continues
// where the last stopped, so a failure costs one chunk; with the default
// backoff these cover about four days of a failing database.
const PurgeAttempts = 100

// PurgeArgs is the removal of a deleted project's rows
// (postgres.PurgeProject).
type PurgeArgs struct {
	ProjectID string `json:"project_id"`
}

// Kind implements river.JobArgs.
func (PurgeArgs) Kind() string { return "project_purge" }

// purgeOpts queue a purge once: a project has at most one purge queued,
// running or waiting for a retry.
var purgeOpts = &river.InsertOpts{Queue: PurgeQueue, MaxAttempts: PurgeAttempts,
	UniqueOpts: river.UniqueOpts{ByArgs: true}}

// EnqueuePurgeTx queues the purge of a project in tx, the transaction that
// marks it deleted: the job exists exactly when the deletion does.
func (r *Runner) EnqueuePurgeTx(ctx context.Context, tx pgx.Tx, projectID string) error {
	_, err := r.client.InsertTx(ctx, tx, PurgeArgs{ProjectID: projectID}, purgeOpts)
	return err
}

// DeletedProjects lists the projects marked deleted whose rows may remain;
// postgres.DB is one.
type DeletedProjects interface {
	DeletedProjects(ctx context.Context) ([]string, error)
}

// ResumePurges queues a purge for every project marked deleted that has
// none (its purge gave up after its attempts, or it was deleted where no
// runner ran) and answers how many it queued. The extension calls it at
// start: a purge that could not finish starts again with each restart.
func (r *Runner) ResumePurges(ctx context.Context, db DeletedProjects) (int, error) {
	ids, err := db.DeletedProjects(ctx)
	if err != nil {
		return 0, err
	}
	return r.enqueueEach(ctx, ids, func(id string) river.JobArgs { return PurgeArgs{ProjectID: id} }, purgeOpts)
}

// enqueueEach queues the job args(id) of every id with opts (unique by
// their arguments) and answers how many it queued, those already queued
// not counted.
func (r *Runner) enqueueEach(ctx context.Context, ids []string, args func(id string) river.JobArgs, opts *river.InsertOpts) (int, error) {
	n := 0
	for _, id := range ids {
		res, err := r.client.Insert(ctx, args(id), opts)
		if err != nil {
			return n, err
		}
		if !res.UniqueSkippedAsDuplicate {
			n++
		}
	}
	return n, nil
}

// Purger removes a deleted project's rows; postgres.DB is one.
type Purger interface {
	PurgeProject(ctx context.Context, id string, opts postgres.PurgeOptions) (postgres.PurgeResult, error)
}

// purgeWorker runs a purge to its end.
type purgeWorker struct {
	river.WorkerDefaults[PurgeArgs]
	db  Purger
	log *zap.Logger
	// sliceFor replaces PurgeSlice in tests.
	sliceFor time.Duration
}

// PurgeSlice is how long one run of a purge job deletes before it hands
// the rest to the next run (a snooze, which takes no attempt): River takes
// a job running for an hour for stuck and runs it again beside itself.
const PurgeSlice = 10 * time.Minute

// Timeout bounds a run: its slice, and the chunk that started last.
func (w *purgeWorker) Timeout(*river.Job[PurgeArgs]) time.Duration { return PurgeSlice + 6*time.Minute }

// Work purges the project for at most a slice, then lets the next run
// continue; an error (or a stop) is retried, and the retry continues with
// the rows that are left.
func (w *purgeWorker) Work(ctx context.Context, job *river.Job[PurgeArgs]) error {
	if w.db == nil {
		return errors.New("this instance cannot purge projects")
	}
	t0 := time.Now()
	res, err := w.db.PurgeProject(ctx, job.Args.ProjectID, postgres.PurgeOptions{Until: t0.Add(w.slice())})
	fields := []zap.Field{zap.String("project_id", job.Args.ProjectID), zap.Int64("rows", res.Rows),
		zap.Int("chunks", res.Chunks), zap.Duration("took", time.Since(t0)), zap.Int("attempt", job.Attempt)}
	if err != nil {
		w.log.Warn("deleted project's rows: purge stopped; will continue", append(fields, zap.Error(err))...)
		return err
	}
	if !res.Done {
		w.log.Info("deleted project's rows: purge continues in the next run", fields...)
		return river.JobSnooze(0)
	}
	w.log.Info("deleted project's rows purged", fields...)
	return nil
}

// slice is PurgeSlice unless a test shortened it.
func (w *purgeWorker) slice() time.Duration {
	if w.sliceFor > 0 {
		return w.sliceFor
	}
	return PurgeSlice
}
