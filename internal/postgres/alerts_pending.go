package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/guardrail"
)

// The alert queue (migration 0022): an ingest transaction queues what it
// judged in one row, sent with its COMMIT; the alert drain turns rows into
// claimed alerts, notifications and deliveries later, in a transaction of
// its own.

// queuedBreach is a guardrail.Breach as alerts_pending stores it.
type queuedBreach struct {
	Agent    string    `json:"agent"`
	Kind     string    `json:"kind"`
	Subject  string    `json:"subject"`
	Count    int64     `json:"count"`
	Limit    *int64    `json:"limit,omitempty"`
	Observed int64     `json:"observed"`
	LastSeen time.Time `json:"last_seen"`
}

// Crossing is the budget thresholds a batch found the month's metered
// spend to have reached, with the budget it was judged against.
type Crossing struct {
	Month      time.Time `json:"month"`
	Thresholds []int32   `json:"thresholds"`
	SpendNano  int64     `json:"spend_nano"`
	BudgetNano int64     `json:"budget_nano"`
	Mode       string    `json:"mode"`
}

// QueueAlerts queues, to be sent with the transaction's COMMIT, the
// breaches and crossings judged at judgedAt (breaches under the alert keys
// of hour): they are alerted exactly when the batch commits, by
// DrainAlerts on any instance.
func (w *WriteTx) QueueAlerts(projectID string, hour, judgedAt time.Time, bs []guardrail.Breach, cs []Crossing) error {
	if len(bs) == 0 && len(cs) == 0 {
		return nil
	}
	q := make([]queuedBreach, len(bs))
	for i, b := range bs {
		q[i] = queuedBreach{Agent: b.Agent, Kind: string(b.Kind), Subject: b.Subject, Count: b.Count, Limit: b.Limit,
			Observed: b.Observed, LastSeen: b.LastSeen.UTC()}
	}
	breaches, err := json.Marshal(q)
	if err != nil {
		return err
	}
	if cs == nil {
		cs = []Crossing{}
	}
	crossings, err := json.Marshal(cs)
	if err != nil {
		return err
	}
	w.later(`INSERT INTO alerts_pending (project_id, hour, judged_at, breaches, crossings) VALUES ($1, $2, $3, $4, $5)`,
		projectID, hour, judgedAt, breaches, crossings)
	return nil
}

// PendingBreach is one queued breach with when it was judged.
type PendingBreach struct {
	guardrail.Breach
	JudgedAt time.Time
}

// PendingCrossing is one queued budget threshold with the spend and
// budget it was judged with.
type PendingCrossing struct {
	Month      time.Time
	Threshold  int32
	SpendNano  int64
	BudgetNano int64
	Mode       string
	JudgedAt   time.Time
}

// PendingAlerts are the queued alerts of one project: breaches of one
// alert hour, each key once (the earliest judged) in key order, and budget
// thresholds, each (month, threshold) once (the earliest judged).
type PendingAlerts struct {
	ProjectID  string
	Hour       time.Time
	HasWebhook bool
	Breaches   []PendingBreach
	Crossings  []PendingCrossing
}

// drainSQL takes up to $1 queued rows after id $2 that no other drain
// holds, deleting them: they are gone exactly when the drain's alerts
// commit.
const drainSQL = `WITH d AS (
  DELETE FROM alerts_pending WHERE id IN (
    SELECT id FROM alerts_pending WHERE id > $2 ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING id, project_id, hour, judged_at, breaches, crossings
)
SELECT d.id, d.project_id, d.hour, d.judged_at, d.breaches, d.crossings,
  EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = d.project_id)
FROM d ORDER BY d.id`

// drainChunk bounds the rows one drain transaction takes.
const drainChunk = 200

// DrainAlerts takes queued alerts, chunk by chunk, and calls alert in the
// transaction that deletes them, once per project and hour, in (project,
// hour) order so that two drains claim keys in one order; after each
// commit, committed gets what was alerted. It returns how many rows it
// took.
//
// A chunk that fails is rolled back and taken again one row at a time: a
// row that fails on its own (a bug in a payload, say) stays queued and is
// named in the error, and the rows behind it are still alerted.
func (db *DB) DrainAlerts(ctx context.Context, alert func(context.Context, *WriteTx, PendingAlerts) error,
	committed func([]PendingAlerts)) (int, error) {
	total, limit := 0, drainChunk
	var after int64 // rows up to it failed on their own in this drain
	var failed error
	for {
		n, last, groups, err := db.drainOnce(ctx, after, limit, alert)
		switch {
		case err != nil && (ctx.Err() != nil || (limit == 1 && last <= after)):
			return total, errors.Join(failed, translate(err, "alerts"))
		case err != nil && limit > 1:
			limit = 1 // find the row that fails
			continue
		case err != nil:
			failed = errors.Join(failed, fmt.Errorf("queued alert %d stays queued: %w", last, err))
			after, limit = last, drainChunk
			continue
		}
		total += n
		if len(groups) > 0 && committed != nil {
			committed(groups)
		}
		if n < limit {
			return total, failed
		}
	}
}

// drainOnce takes up to limit rows after id after in one transaction and
// alerts them; last is the highest id it read, also when it failed.
func (db *DB) drainOnce(ctx context.Context, after int64, limit int, alert func(context.Context, *WriteTx, PendingAlerts) error) (
	n int, last int64, groups []PendingAlerts, err error) {
	err = pgx.BeginFunc(ctx, db.mergePool(), func(tx pgx.Tx) error {
		var err error
		if n, groups, err = takeAlerts(ctx, tx, after, limit, &last); err != nil {
			return err
		}
		w := &WriteTx{tx: tx, db: db}
		for _, g := range groups {
			if err := alert(ctx, w, g); err != nil {
				return err
			}
		}
		return nil
	})
	return n, last, groups, err
}

// takeAlerts deletes a chunk of queued rows and groups them; *last is
// the highest id read.
func takeAlerts(ctx context.Context, tx pgx.Tx, after int64, limit int, last *int64) (int, []PendingAlerts, error) {
	rows, err := tx.Query(ctx, drainSQL, limit, after)
	if err != nil {
		return 0, nil, err
	}
	n := 0
	var id int64
	var project string
	var hour, judged time.Time
	var breaches, crossings []byte
	var hasWebhook bool
	type groupKey struct {
		project string
		hour    time.Time
	}
	type breachKey struct {
		groupKey
		agent, subject, kind string
	}
	type crossingKey struct {
		project string
		month   time.Time
		t       int32
	}
	byKey := map[groupKey]*PendingAlerts{}
	seenBreach, seenCrossing := map[breachKey]bool{}, map[crossingKey]bool{}
	_, err = pgx.ForEachRow(rows, []any{&id, &project, &hour, &judged, &breaches, &crossings, &hasWebhook}, func() error {
		n++
		*last = id
		var qb []queuedBreach
		var qc []Crossing
		if err := json.Unmarshal(breaches, &qb); err != nil {
			return err
		}
		if err := json.Unmarshal(crossings, &qc); err != nil {
			return err
		}
		k := groupKey{project, hour.UTC()}
		p := byKey[k]
		if p == nil {
			p = &PendingAlerts{ProjectID: project, Hour: hour.UTC(), HasWebhook: hasWebhook}
			byKey[k] = p
		}
		for _, b := range qb {
			if key := (breachKey{k, b.Agent, b.Subject, b.Kind}); !seenBreach[key] {
				seenBreach[key] = true
				p.Breaches = append(p.Breaches, PendingBreach{JudgedAt: judged.UTC(), Breach: guardrail.Breach{Agent: b.Agent,
					Kind: guardrail.Kind(b.Kind), Subject: b.Subject, Count: b.Count, Limit: b.Limit, Observed: b.Observed,
					LastSeen: b.LastSeen}})
			}
		}
		for _, c := range qc {
			for _, t := range c.Thresholds {
				if key := (crossingKey{project, c.Month.UTC(), t}); !seenCrossing[key] {
					seenCrossing[key] = true
					p.Crossings = append(p.Crossings, PendingCrossing{Month: c.Month.UTC(), Threshold: t, SpendNano: c.SpendNano,
						BudgetNano: c.BudgetNano, Mode: c.Mode, JudgedAt: judged.UTC()})
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	groups := make([]PendingAlerts, 0, len(byKey))
	for _, p := range byKey {
		slices.SortFunc(p.Breaches, func(a, b PendingBreach) int {
			return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Subject, b.Subject), cmp.Compare(a.Kind, b.Kind))
		})
		slices.SortFunc(p.Crossings, func(a, b PendingCrossing) int {
			return cmp.Or(a.Month.Compare(b.Month), cmp.Compare(a.Threshold, b.Threshold))
		})
		groups = append(groups, *p)
	}
	slices.SortFunc(groups, func(a, b PendingAlerts) int {
		return cmp.Or(cmp.Compare(a.ProjectID, b.ProjectID), a.Hour.Compare(b.Hour))
	})
	return n, groups, nil
}
