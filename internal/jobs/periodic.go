package jobs

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// onePeriodic inserts args at start and every interval under the periodic
// id. Only the elected leader among the instances inserts periodic jobs,
// and none is inserted while another of its kind is queued, running or
// waiting for a retry, so one instance at a time runs it. A failed run is
// not retried: the next interval is the retry.
func onePeriodic(id string, interval time.Duration, args river.JobArgs) *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(interval), func() (river.JobArgs, *river.InsertOpts) {
		return args, oneAtATime()
	}, &river.PeriodicJobOpts{ID: id, RunOnStart: true})
}

// oneAtATime are the insert options of a job of which at most one may be
// queued, running or waiting for a retry; it is not retried.
func oneAtATime() *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled}}}
}
