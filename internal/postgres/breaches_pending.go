package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/guardrail"
)

// The breach outbox (migration 0022): an ingest transaction queues the
// breaches it judged in one row, the alert drain turns them into claimed
// alerts, notifications and deliveries later, in a transaction of its own.

// queuedBreach is a guardrail.Breach as breaches_pending stores it.
type queuedBreach struct {
	Agent    string    `json:"agent"`
	Kind     string    `json:"kind"`
	Subject  string    `json:"subject"`
	Count    int64     `json:"count"`
	Limit    *int64    `json:"limit,omitempty"`
	Observed int64     `json:"observed"`
	LastSeen time.Time `json:"last_seen"`
}

// QueueBreaches stores breaches judged at judgedAt for alerting under the
// alert keys of hour, in one statement: they are alerted exactly when the
// transaction commits, by DrainBreaches on any instance.
func (w *WriteTx) QueueBreaches(ctx context.Context, projectID string, hour, judgedAt time.Time, bs []guardrail.Breach) error {
	if len(bs) == 0 {
		return nil
	}
	q := make([]queuedBreach, len(bs))
	for i, b := range bs {
		q[i] = queuedBreach{Agent: b.Agent, Kind: string(b.Kind), Subject: b.Subject, Count: b.Count, Limit: b.Limit,
			Observed: b.Observed, LastSeen: b.LastSeen.UTC()}
	}
	doc, err := json.Marshal(q)
	if err != nil {
		return err
	}
	return w.run(ctx, `INSERT INTO breaches_pending (project_id, hour, judged_at, breaches) VALUES ($1, $2, $3, $4)`,
		[]any{projectID, hour, judgedAt, doc}, nil, func() error { return nil })
}

// PendingBreach is one queued breach with when it was judged.
type PendingBreach struct {
	guardrail.Breach
	JudgedAt time.Time
}

// PendingBreaches are the queued breaches of one project and alert hour,
// each alert key once (the earliest judged), in key order.
type PendingBreaches struct {
	ProjectID  string
	Hour       time.Time
	HasWebhook bool
	Breaches   []PendingBreach
}

// drainSQL takes up to $1 queued rows no other drain holds, deleting them:
// they are gone exactly when the drain's alerts commit.
const drainSQL = `WITH d AS (
  DELETE FROM breaches_pending WHERE id IN (
    SELECT id FROM breaches_pending ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING id, project_id, hour, judged_at, breaches
)
SELECT d.project_id, d.hour, d.judged_at, d.breaches, EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = d.project_id)
FROM d ORDER BY d.id`

// drainChunk bounds the rows one drain transaction takes.
const drainChunk = 200

// DrainBreaches takes queued breaches, chunk by chunk, and calls alert in
// the transaction that deletes them, once per project and hour, in
// (project, hour) order so that two drains claim alert keys in one order;
// after each commit, committed gets what it alerted. It returns how many
// rows it took. An error of alert rolls its chunk back for a later drain.
func (db *DB) DrainBreaches(ctx context.Context, alert func(context.Context, *WriteTx, PendingBreaches) error,
	committed func([]PendingBreaches)) (int, error) {
	total := 0
	for {
		var groups []PendingBreaches
		n := 0
		err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, drainSQL, drainChunk)
			if err != nil {
				return err
			}
			var g PendingBreaches
			var judged time.Time
			var doc []byte
			byKey := map[[2]string]*PendingBreaches{}
			seen := map[[5]string]bool{}
			_, err = pgx.ForEachRow(rows, []any{&g.ProjectID, &g.Hour, &judged, &doc, &g.HasWebhook}, func() error {
				n++
				var q []queuedBreach
				if err := json.Unmarshal(doc, &q); err != nil {
					return err
				}
				k := [2]string{g.ProjectID, g.Hour.UTC().Format(time.RFC3339)}
				p := byKey[k]
				if p == nil {
					p = &PendingBreaches{ProjectID: g.ProjectID, Hour: g.Hour.UTC(), HasWebhook: g.HasWebhook}
					byKey[k] = p
				}
				for _, b := range q {
					if key := [5]string{k[0], k[1], b.Agent, b.Subject, b.Kind}; !seen[key] {
						seen[key] = true
						p.Breaches = append(p.Breaches, PendingBreach{JudgedAt: judged.UTC(), Breach: guardrail.Breach{Agent: b.Agent,
							Kind: guardrail.Kind(b.Kind), Subject: b.Subject, Count: b.Count, Limit: b.Limit, Observed: b.Observed,
							LastSeen: b.LastSeen}})
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, p := range byKey {
				slices.SortFunc(p.Breaches, func(a, b PendingBreach) int {
					return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Subject, b.Subject), cmp.Compare(a.Kind, b.Kind))
				})
				groups = append(groups, *p)
			}
			slices.SortFunc(groups, func(a, b PendingBreaches) int {
				return cmp.Or(cmp.Compare(a.ProjectID, b.ProjectID), a.Hour.Compare(b.Hour))
			})
			w := &WriteTx{tx: tx, db: db}
			for _, g := range groups {
				if err := alert(ctx, w, g); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return total, translate(err, "breach alerts")
		}
		total += n
		if len(groups) > 0 && committed != nil {
			committed(groups)
		}
		if n < drainChunk {
			return total, nil
		}
	}
}
