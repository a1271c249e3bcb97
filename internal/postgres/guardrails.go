package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/guardrail"
)

// GuardrailRow is a stored guardrail.
type GuardrailRow struct {
	ID string
	guardrail.Guardrail
	CreatedAt, UpdatedAt time.Time
}

// bumpPolicy is the CTE that moves a project's policy_version on a
// guardrail, tag, budget or webhook write, so every instance's cache sees
// the change at its next batch.
const bumpPolicy = `bump AS (UPDATE projects SET policy_version = policy_version + 1 WHERE id = $1 RETURNING 1)`

const guardrailCols = `id, agent_name, allowed_tools, read_only, allowed_models, max_tool_calls_per_run,
    max_cost_per_run_nano, enabled, created_at, updated_at`

func scanGuardrail(row pgx.Row) (GuardrailRow, error) {
	var g GuardrailRow
	err := row.Scan(&g.ID, &g.AgentName, &g.AllowedTools, &g.ReadOnly, &g.AllowedModels,
		&g.MaxToolCallsPerRun, &g.MaxCostPerRunNano, &g.Enabled, &g.CreatedAt, &g.UpdatedAt)
	return g, err
}

// PutGuardrail creates or replaces the guardrail of g.AgentName; created
// reports a new one.
func (db *DB) PutGuardrail(ctx context.Context, projectID string, g guardrail.Guardrail) (GuardrailRow, bool, error) {
	row := db.Pool.QueryRow(ctx, `WITH `+bumpPolicy+`
INSERT INTO guardrails (project_id, agent_name, allowed_tools, read_only, allowed_models,
    max_tool_calls_per_run, max_cost_per_run_nano, enabled)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (project_id, agent_name) DO UPDATE SET allowed_tools = excluded.allowed_tools,
    read_only = excluded.read_only, allowed_models = excluded.allowed_models,
    max_tool_calls_per_run = excluded.max_tool_calls_per_run,
    max_cost_per_run_nano = excluded.max_cost_per_run_nano, enabled = excluded.enabled, updated_at = now()
RETURNING `+guardrailCols+`, (xmax = 0)`,
		projectID, g.AgentName, g.AllowedTools, g.ReadOnly, g.AllowedModels, g.MaxToolCallsPerRun,
		g.MaxCostPerRunNano, g.Enabled)
	var out GuardrailRow
	var created bool
	err := row.Scan(&out.ID, &out.AgentName, &out.AllowedTools, &out.ReadOnly, &out.AllowedModels,
		&out.MaxToolCallsPerRun, &out.MaxCostPerRunNano, &out.Enabled, &out.CreatedAt, &out.UpdatedAt, &created)
	return out, created, translate(err, "guardrail")
}

// DeleteGuardrail removes agent's guardrail (404 when there is none).
func (db *DB) DeleteGuardrail(ctx context.Context, projectID, agent string) error {
	return db.deleteOne(ctx, `WITH `+bumpPolicy+` DELETE FROM guardrails WHERE project_id = $1 AND agent_name = $2`,
		"guardrail", projectID, agent)
}

func (db *DB) deleteOne(ctx context.Context, sql, what string, args ...any) error {
	tag, err := db.Pool.Exec(ctx, sql, args...)
	if err != nil {
		return translate(err, what)
	}
	if tag.RowsAffected() == 0 {
		return apierr.Newf(apierr.NotFound, "%s not found", what)
	}
	return nil
}

// Guardrails lists a project's guardrails by agent name.
func (db *DB) Guardrails(ctx context.Context, projectID string) ([]GuardrailRow, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+guardrailCols+` FROM guardrails WHERE project_id = $1
ORDER BY agent_name`, projectID)
	if err != nil {
		return nil, translate(err, "guardrails")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (GuardrailRow, error) { return scanGuardrail(r) })
	return out, translate(err, "guardrails")
}

// ToolTag is a tool's declared access.
type ToolTag struct {
	ToolName string
	Access   guardrail.Access
}

// PutToolTag sets a tool's access.
func (db *DB) PutToolTag(ctx context.Context, projectID string, t ToolTag) error {
	_, err := db.Pool.Exec(ctx, `WITH `+bumpPolicy+`
INSERT INTO tool_tags (project_id, tool_name, access) VALUES ($1, $2, $3)
ON CONFLICT (project_id, tool_name) DO UPDATE SET access = excluded.access`, projectID, t.ToolName, string(t.Access))
	return translate(err, "tool tag")
}

// DeleteToolTag removes a tool's tag (404 when there is none).
func (db *DB) DeleteToolTag(ctx context.Context, projectID, tool string) error {
	return db.deleteOne(ctx, `WITH `+bumpPolicy+` DELETE FROM tool_tags WHERE project_id = $1 AND tool_name = $2`,
		"tool tag", projectID, tool)
}

// ToolTags lists a project's tags by tool name.
func (db *DB) ToolTags(ctx context.Context, projectID string) ([]ToolTag, error) {
	rows, err := db.Pool.Query(ctx, `SELECT tool_name, access FROM tool_tags WHERE project_id = $1 ORDER BY tool_name`, projectID)
	if err != nil {
		return nil, translate(err, "tool tags")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ToolTag, error) {
		var t ToolTag
		err := r.Scan(&t.ToolName, &t.Access)
		return t, err
	})
	return out, translate(err, "tool tags")
}

// Policy is what the ingest hook caches of a project: guardrails, tags,
// budget and whether a webhook is set, at Version.
type Policy struct {
	Version    int64
	Rules      guardrail.Policy
	Budget     *Budget
	HasWebhook bool
}

// LoadPolicy reads a project's policy in one snapshot.
func (db *DB) LoadPolicy(ctx context.Context, projectID string) (Policy, error) {
	var p Policy
	err := pgx.BeginTxFunc(ctx, db.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return loadPolicy(ctx, tx, projectID, &p) })
	return p, translate(err, "policy")
}

func loadPolicy(ctx context.Context, tx txQuerier, projectID string, p *Policy) error {
	if err := tx.QueryRow(ctx, `SELECT policy_version, EXISTS (SELECT 1 FROM webhooks WHERE project_id = $1)
FROM projects WHERE id = $1`, projectID).Scan(&p.Version, &p.HasWebhook); err != nil {
		return err
	}
	p.Rules = guardrail.Policy{Guardrails: map[string]guardrail.Guardrail{}, Tags: map[string]guardrail.Access{}}
	rows, err := tx.Query(ctx, `SELECT `+guardrailCols+` FROM guardrails WHERE project_id = $1`, projectID)
	if err != nil {
		return err
	}
	gs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (GuardrailRow, error) { return scanGuardrail(r) })
	if err != nil {
		return err
	}
	for _, g := range gs {
		p.Rules.Guardrails[g.AgentName] = g.Guardrail
	}
	rows, err = tx.Query(ctx, `SELECT tool_name, access FROM tool_tags WHERE project_id = $1`, projectID)
	if err != nil {
		return err
	}
	var tool, acc string
	if _, err := pgx.ForEachRow(rows, []any{&tool, &acc}, func() error {
		p.Rules.Tags[tool] = guardrail.Access(acc)
		return nil
	}); err != nil {
		return err
	}
	b, err := readBudget(ctx, tx, projectID)
	p.Budget = b
	return err
}
