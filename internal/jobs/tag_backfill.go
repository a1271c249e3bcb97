package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
)

// TagBackfillArgs is the count of a project's stored calls under its
// newly declared tag keys (postgres.BackfillTags).
type TagBackfillArgs struct {
	ProjectID string `json:"project_id"`
}

// Kind implements river.JobArgs.
func (TagBackfillArgs) Kind() string { return "tag_backfill" }

// tagBackfillOpts queue a project's back-fill once: one job counts every
// key due, so a second declaration while it runs needs none of its own.
// It shares the purge's queue of one worker: both are long, chunked work
// on the mergers' pool that must not take the default queue's workers.
var tagBackfillOpts = &river.InsertOpts{Queue: PurgeQueue, MaxAttempts: PurgeAttempts,
	UniqueOpts: river.UniqueOpts{ByArgs: true}}

// EnqueueTagBackfillTx queues a project's tag back-fill in tx, the
// transaction that declares the keys.
func (r *Runner) EnqueueTagBackfillTx(ctx context.Context, tx pgx.Tx, projectID string) error {
	_, err := r.client.InsertTx(ctx, tx, TagBackfillArgs{ProjectID: projectID}, tagBackfillOpts)
	return err
}

// TagBackfills lists the projects with a back-fill due and runs one;
// postgres.DB is one.
type TagBackfills interface {
	ProjectsBackfillingTags(ctx context.Context) ([]string, error)
	BackfillTags(ctx context.Context, projectID string, until time.Time) (bool, error)
}

// ResumeTagBackfills queues a back-fill for every project with one due
// (one that gave up, or was declared where no runner ran) and answers how
// many it queued; the extension calls it at start.
func (r *Runner) ResumeTagBackfills(ctx context.Context, db TagBackfills) (int, error) {
	ids, err := db.ProjectsBackfillingTags(ctx)
	if err != nil {
		return 0, err
	}
	return r.enqueueEach(ctx, ids, func(id string) river.JobArgs { return TagBackfillArgs{ProjectID: id} }, tagBackfillOpts)
}

// tagBackfillWorker runs a back-fill for a slice at a time.
type tagBackfillWorker struct {
	river.WorkerDefaults[TagBackfillArgs]
	db  TagBackfills
	log *zap.Logger
	// sliceFor replaces PurgeSlice in tests.
	sliceFor time.Duration
}

// Timeout bounds a run: its slice, and the chunk that started last.
func (w *tagBackfillWorker) Timeout(*river.Job[TagBackfillArgs]) time.Duration {
	return PurgeSlice + 6*time.Minute
}

// Work back-fills for at most a slice (as a purge: River takes a job
// running for an hour for stuck), then snoozes to continue; each chunk
// commits on its own, so a retry continues where the last run stopped.
func (w *tagBackfillWorker) Work(ctx context.Context, job *river.Job[TagBackfillArgs]) error {
	if w.db == nil {
		return errors.New("this instance cannot back-fill tags")
	}
	slice := PurgeSlice
	if w.sliceFor > 0 {
		slice = w.sliceFor
	}
	t0 := time.Now()
	done, err := w.db.BackfillTags(ctx, job.Args.ProjectID, t0.Add(slice))
	fields := []zap.Field{zap.String("project_id", job.Args.ProjectID), zap.Duration("took", time.Since(t0)),
		zap.Int("attempt", job.Attempt)}
	switch {
	case err != nil:
		w.log.Warn("tag back-fill stopped; will continue", append(fields, zap.Error(err))...)
		return err
	case !done:
		return river.JobSnooze(0)
	}
	w.log.Info("tag back-fill done", fields...)
	return nil
}
