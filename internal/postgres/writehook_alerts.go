package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/webhook"
)

// The statements that record alerts in the ingest transaction. A hook runs
// them inside Savepoint, so that a failure there undoes only the alerts and
// the batch still commits. Judging must cost a batch a few percent
// (issue 11): each round trip is a sizeable share of a 100-call batch, so
// the SAVEPOINT travels with the first statement, nothing releases it
// (the commit does), and a breach's claim and its notifications are one
// statement.

const savepointSQL = `SAVEPOINT llmcost_alerts`

// Savepoint runs fn so that its failure undoes only its own writes and
// leaves the batch to commit.
func (w *WriteTx) Savepoint(ctx context.Context, fn func() error) error {
	w.savepoint, w.sent = true, false
	err := fn()
	w.savepoint = false
	if err != nil && w.sent {
		if _, rerr := w.tx.Exec(ctx, `ROLLBACK TO SAVEPOINT llmcost_alerts`); rerr != nil {
			return rerr
		}
	}
	return err
}

// flushSavepoint sends a pending SAVEPOINT on its own, before a statement
// that does not go through run.
func (w *WriteTx) flushSavepoint(ctx context.Context) error {
	if !w.savepoint || w.sent {
		return nil
	}
	if _, err := w.tx.Exec(ctx, savepointSQL); err != nil {
		return err
	}
	w.sent = true
	return nil
}

// run sends sql, preceded by a pending SAVEPOINT in the same round trip,
// and calls each for every row scanned into dest.
func (w *WriteTx) run(ctx context.Context, sql string, args []any, dest []any, each func() error) error {
	b := &pgx.Batch{}
	first := w.savepoint && !w.sent
	if first {
		b.Queue(savepointSQL)
	}
	b.Queue(sql, args...)
	br := w.tx.SendBatch(ctx, b)
	if first {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return err
		}
		w.sent = true
	}
	rows, err := br.Query()
	if err == nil {
		_, err = pgx.ForEachRow(rows, dest, each)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// Enqueue queues webhook deliveries in the transaction.
func (w *WriteTx) Enqueue(ctx context.Context, envs []webhook.Envelope) error {
	if w.db.Enqueue == nil || len(envs) == 0 {
		return nil
	}
	if err := w.flushSavepoint(ctx); err != nil {
		return err
	}
	return w.db.Enqueue(ctx, w.tx, envs)
}

// noticeColumns are the notices as unnest arrays.
func noticeColumns(ns []Notice) (typ, title, body, data []string) {
	typ, title, body, data = make([]string, len(ns)), make([]string, len(ns)), make([]string, len(ns)), make([]string, len(ns))
	for i, n := range ns {
		typ[i], title[i], body[i], data[i] = n.Type, n.Title, n.Body, string(n.Data)
	}
	return typ, title, body, data
}

// notifyAdmins inserts, for the notices of CTE src (columns typ, title,
// body, data, i), one notification per owner and admin of project $1.
func notifyAdmins(src string) string {
	return `INSERT INTO notifications (user_id, project_id, type, title, body, data)
SELECT m.user_id, m.project_id, n.typ, n.title, n.body, n.data::jsonb FROM ` + src + `
CROSS JOIN memberships m
WHERE m.project_id = $1 AND m.role = 'admin' AND m.accepted_at IS NOT NULL AND m.user_id IS NOT NULL
ORDER BY n.i`
}

// claimBreachesSQL records the breaches' alerts of hour $5 (one row per
// agent, subject and kind) and notifies the project's owners and admins
// of those it recorded first, with the breach's notice; it returns them.
var claimBreachesSQL = `WITH b AS (
  SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $6::text[], $7::text[], $8::text[], $9::text[])
    WITH ORDINALITY AS b(a, s, k, typ, title, body, data, i)
), c AS (
  INSERT INTO guardrail_alerts (project_id, agent_name, subject, kind, hour)
  SELECT $1, a, s, k, $5 FROM b ORDER BY a, s, k
  ON CONFLICT DO NOTHING RETURNING agent_name, subject, kind
), nt AS (
  ` + notifyAdmins(`(SELECT b.* FROM b JOIN c ON c.agent_name = b.a AND c.subject = b.s AND c.kind = b.k) n`) + `
)
SELECT agent_name, subject, kind FROM c`

// ClaimBreachAlerts records the alerts of breaches in hour, one row per
// (agent, subject, kind), and gives owners and admins notices[i] for each
// breach bs[i] recorded first, in one statement; it returns which were
// new (false: this hour already has it, on this or another instance).
func (w *WriteTx) ClaimBreachAlerts(ctx context.Context, projectID string, bs []guardrail.Breach, hour time.Time, notices []Notice) ([]bool, error) {
	agents, subjects, kinds := make([]string, len(bs)), make([]string, len(bs)), make([]string, len(bs))
	for i, b := range bs {
		agents[i], subjects[i], kinds[i] = b.Agent, b.Subject, string(b.Kind)
	}
	typ, title, body, data := noticeColumns(notices)
	fresh := map[[3]string]bool{}
	var a, sub, k string
	if err := w.run(ctx, claimBreachesSQL, []any{projectID, agents, subjects, kinds, hour, typ, title, body, data},
		[]any{&a, &sub, &k}, func() error {
			fresh[[3]string{a, sub, k}] = true
			return nil
		}); err != nil {
		return nil, err
	}
	out := make([]bool, len(bs))
	for i := range bs {
		out[i] = fresh[[3]string{agents[i], subjects[i], kinds[i]}]
	}
	return out, nil
}

// ClaimThresholds records the thresholds crossed in month and returns
// those no transaction recorded before: each is alerted exactly once.
func (w *WriteTx) ClaimThresholds(ctx context.Context, projectID string, month time.Time, thresholds []int32) ([]int32, error) {
	var out []int32
	var t int32
	err := w.run(ctx, `INSERT INTO budget_crossings (project_id, month, threshold)
SELECT $1, $2, t FROM unnest($3::int[]) AS t ORDER BY t ON CONFLICT DO NOTHING RETURNING threshold`,
		[]any{projectID, month, thresholds}, []any{&t}, func() error {
			out = append(out, t)
			return nil
		})
	return out, err
}

// Notice is one in-app notification for a project's owners and admins.
type Notice struct {
	Type, Title, Body string
	Data              json.RawMessage
}

// Notify gives every owner and admin of the project each notice, in one
// statement.
func (w *WriteTx) Notify(ctx context.Context, projectID string, ns []Notice) error {
	if len(ns) == 0 {
		return nil
	}
	typ, title, body, data := noticeColumns(ns)
	return w.run(ctx, notifyAdmins(`unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS n(typ, title, body, data, i)`),
		[]any{projectID, typ, title, body, data}, nil, func() error { return nil })
}
