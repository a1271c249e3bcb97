package postgres

import (
	"context"

	"github.com/llmcost/llmcost/internal/event"
)

// EventFilter selects a page of a project's events, newest first.
type EventFilter struct {
	ProjectID string
	AgentName string
	Limit     int
	Offset    int
}

const listEventsSQL = `
SELECT event_id, ts, agent_name, model, input_tokens, output_tokens, cached_tokens, cache_write_tokens,
  total_tokens, reasoning_tokens, cost_nano, cost_provided, coalesce(catalogue_cost_nano, -1), priced,
  price_version, latency_ms, success, coalesce(error, ''), streaming, coalesce(trace_id, ''),
  coalesce(span_id, ''), coalesce(parent_span_id, ''), coalesce(workflow, ''), coalesce(step_name, ''),
  coalesce(tool_name, ''), coalesce(user_id, ''), coalesce(session_id, ''), billing, source,
  coalesce(metadata::text, ''), cache_write_1h_tokens
FROM events
WHERE project_id = $1 AND ($2 = '' OR agent_name = $2)
ORDER BY ts DESC, event_id
LIMIT $3 OFFSET $4`

// ListEvents returns one page of events and whether more follow.
func (db *DB) ListEvents(ctx context.Context, f EventFilter) ([]event.Event, bool, error) {
	rows, err := db.Pool.Query(ctx, listEventsSQL, f.ProjectID, f.AgentName, f.Limit+1, f.Offset)
	if err != nil {
		return nil, false, translate(err, "events")
	}
	defer rows.Close()
	out := make([]event.Event, 0, f.Limit)
	for rows.Next() {
		var ev event.Event
		var meta string
		if err := rows.Scan(&ev.EventID, &ev.Timestamp, &ev.AgentName, &ev.Model, &ev.InputTokens,
			&ev.OutputTokens, &ev.CachedTokens, &ev.CacheWriteTokens, &ev.TotalTokens, &ev.ReasoningTokens,
			&ev.CostNano, &ev.CostProvided, &ev.CatalogueCostNano, &ev.Priced, &ev.PriceVersion,
			&ev.LatencyMS, &ev.Success, &ev.Error, &ev.Streaming, &ev.TraceID, &ev.SpanID, &ev.ParentSpanID,
			&ev.Workflow, &ev.StepName, &ev.ToolName, &ev.UserID, &ev.SessionID, &ev.Billing, &ev.Source,
			&meta, &ev.CacheWrite1hTokens); err != nil {
			return nil, false, translate(err, "events")
		}
		ev.ProjectID = f.ProjectID
		ev.Timestamp = ev.Timestamp.UTC()
		if meta != "" {
			ev.Metadata = []byte(meta)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, false, translate(err, "events")
	}
	hasMore := len(out) > f.Limit
	if hasMore {
		out = out[:f.Limit]
	}
	return out, hasMore, nil
}
