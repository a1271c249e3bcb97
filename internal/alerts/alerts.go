// Package alerts is the ingest path's hook (postgres.WriteHook): inside
// the transaction that stored a batch it judges the batch against the
// project's guardrails and its month's spend against the budget and queues
// what it found in one row of the alert queue, sent with the COMMIT. The
// drain (Drain) then records each alert once (an hourly key per agent,
// subject and kind; a row per month and threshold), notifies owners and
// admins, and queues the signed webhook deliveries. It never refuses a
// batch.
package alerts

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// Hook implements postgres.WriteHook with a per-project policy cache
// checked against policy_version (one primary-key read) on every batch.
type Hook struct {
	Log *zap.Logger
	Now func() time.Time

	mu      sync.Mutex
	cache   map[string]postgres.Policy
	claimed map[claimKey]bool // thresholds known to be recorded
	alerted map[alertKey]bool // breach alerts known to be recorded
}

// alertKey is one recorded breach alert.
type alertKey struct {
	project, agent, subject, kind string
	hour                          time.Time
}

type claimKey struct {
	project string
	month   time.Time
	pct     int32
}

// New is a hook with an empty cache.
func New(log *zap.Logger, now func() time.Time) *Hook {
	if log == nil {
		log = zap.NewNop()
	}
	if now == nil {
		now = time.Now
	}
	return &Hook{Log: log, Now: now, cache: map[string]postgres.Policy{}, claimed: map[claimKey]bool{},
		alerted: map[alertKey]bool{}}
}

// AfterWrite judges what the transaction stored, project by project.
func (h *Hook) AfterWrite(ctx context.Context, tx *postgres.WriteTx, w postgres.Written) error {
	spend := map[string][]postgres.SpendChange{}
	for _, s := range w.Spend {
		spend[s.ProjectID] = append(spend[s.ProjectID], s)
	}
	for project, events := range byProject(w.Events) {
		pol, err := h.policy(ctx, tx, project, w.Versions[project])
		if err != nil {
			return err
		}
		if len(pol.Rules.Guardrails) == 0 && (pol.Budget == nil || !pol.Budget.Enabled) {
			continue
		}
		j := judgement{h: h, tx: tx, project: project, pol: pol, now: h.Now().UTC(), pre: w.RunTotals[project]}
		// A batch that only repeats alerts already recorded writes nothing.
		if err := j.judge(ctx, events, spend[project]); err != nil {
			return err
		}
		if len(j.breaches) == 0 && len(j.crossings) == 0 {
			continue
		}
		// The row goes with COMMIT; should it fail, the batch commits
		// without it and Undone hears why.
		if err := j.record(); err != nil {
			h.Log.Error("guardrail and budget alerts failed; batch stored without them",
				zap.String("project_id", project), zap.Error(err))
			continue
		}
		tx.Undone = h.undone
	}
	return nil
}

// undone logs the alerts a batch committed without (postgres.WriteTx.Undone).
func (h *Hook) undone(err error) {
	h.Log.Error("guardrail and budget alerts failed; batch stored without them", zap.Error(err))
}

// WantRunTotals names, for each project of events whose cached policy has
// per-run limits, the runs judging will read the totals of: the store reads
// them in the insert's round trip (postgres.RunTotalsWanter). A project not
// cached yet, or whose policy moved, has them read while judging.
func (h *Hook) WantRunTotals(events []event.Event) []postgres.RunTotalsRequest {
	var out []postgres.RunTotalsRequest
	for project, evs := range byProject(events) {
		h.mu.Lock()
		pol, ok := h.cache[project]
		h.mu.Unlock()
		if !ok {
			continue
		}
		if traces := h.runTraces(project, pol, evs, h.Now().UTC().Truncate(time.Hour)); len(traces) > 0 {
			out = append(out, postgres.RunTotalsRequest{ProjectID: project, Version: pol.Version, TraceIDs: traces})
		}
	}
	return out
}

// byProject yields each project's events as one sub-slice of events, which
// the store passes sorted by project (postgres.Written): a batch's 464-byte
// events are not copied, twice, for every batch. Unsorted events are
// sorted in a copy first.
func byProject(events []event.Event) iter.Seq2[string, []event.Event] {
	byProjectID := func(a, b event.Event) int { return strings.Compare(a.ProjectID, b.ProjectID) }
	if !slices.IsSortedFunc(events, byProjectID) {
		events = slices.Clone(events)
		slices.SortStableFunc(events, byProjectID)
	}
	return func(yield func(string, []event.Event) bool) {
		for start := 0; start < len(events); {
			end := start + 1
			for end < len(events) && events[end].ProjectID == events[start].ProjectID {
				end++
			}
			if !yield(events[start].ProjectID, events[start:end]) {
				return
			}
			start = end
		}
	}
}

// policy is the cached policy of project, reloaded when its version (read
// by the insert statement) moved.
func (h *Hook) policy(ctx context.Context, tx *postgres.WriteTx, project string, v int64) (postgres.Policy, error) {
	var err error
	h.mu.Lock()
	p, ok := h.cache[project]
	h.mu.Unlock()
	if ok && p.Version == v {
		return p, nil
	}
	if v == 0 { // never configured: nothing to load
		p = postgres.Policy{}
	} else if p, err = tx.LoadPolicy(ctx, project); err != nil {
		return postgres.Policy{}, err
	}
	h.mu.Lock()
	h.cache[project] = p
	h.mu.Unlock()
	return p, nil
}
