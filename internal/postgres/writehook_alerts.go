package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/webhook"
)

// The statements that record alerts: the alert drain's (alerts.Hook.Drain),
// in a transaction of its own. The ingest transaction only defers one row
// of the alert queue (QueueAlerts), sent with its COMMIT.

// run sends sql and calls each for every row scanned into dest.
func (w *WriteTx) run(ctx context.Context, sql string, args []any, dest []any, each func() error) error {
	rows, err := w.tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	_, err = pgx.ForEachRow(rows, dest, each)
	return err
}

// Enqueue queues webhook deliveries in the transaction, which must be a
// pgx.Tx (the drain's: River inserts in one).
func (w *WriteTx) Enqueue(ctx context.Context, envs []webhook.Envelope) error {
	if w.db.Enqueue == nil || len(envs) == 0 {
		return nil
	}
	tx, ok := w.tx.(pgx.Tx)
	if !ok {
		return errors.New("webhook deliveries are queued by the alert drain, not in the ingest transaction")
	}
	return w.db.Enqueue(ctx, tx, envs)
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
