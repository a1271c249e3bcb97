package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
)

// copyColumns are the events columns the ingest path writes.
var copyColumns = []string{"project_id", "event_id", "ts", "agent_name", "model", "input_tokens",
	"output_tokens", "cached_tokens", "cache_write_tokens", "total_tokens", "reasoning_tokens", "cost_nano",
	"cost_provided", "catalogue_cost_nano", "priced", "price_version", "latency_ms", "success", "error",
	"streaming", "trace_id", "span_id", "parent_span_id", "workflow", "step_name", "tool_name", "user_id",
	"session_id", "billing", "source", "metadata", "cache_write_1h_tokens"}

// CopyEvents loads events with COPY, the fastest way PostgreSQL takes rows.
// It is the baseline the ingest benchmark measures itself against and the
// analytics benchmark's bulk loader; it does not deduplicate. Rows come out
// as the ingest path stores them (no catalogue cost for an unpriced call).
func (db *DB) CopyEvents(ctx context.Context, events []event.Event) (int64, error) {
	rows := make([][]any, len(events))
	for i := range events {
		ev := &events[i]
		var meta, catalogue any
		if len(ev.Metadata) > 0 {
			meta = string(ev.Metadata)
		}
		if ev.Priced {
			catalogue = ev.CatalogueCostNano
		}
		rows[i] = []any{ev.ProjectID, ev.EventID, ev.Timestamp, ev.AgentName, ev.Model, ev.InputTokens,
			ev.OutputTokens, ev.CachedTokens, ev.CacheWriteTokens, ev.TotalTokens, ev.ReasoningTokens,
			ev.CostNano, ev.CostProvided, catalogue, ev.Priced, ev.PriceVersion, ev.LatencyMS,
			ev.Success, nilIfEmpty(ev.Error), ev.Streaming, nilIfEmpty(ev.TraceID), nilIfEmpty(ev.SpanID),
			nilIfEmpty(ev.ParentSpanID), nilIfEmpty(ev.Workflow), nilIfEmpty(ev.StepName), nilIfEmpty(ev.ToolName),
			nilIfEmpty(ev.UserID), nilIfEmpty(ev.SessionID), billingOrAPI(ev.Billing), ev.Source, meta,
			ev.CacheWrite1hTokens}
	}
	n, err := db.Pool.CopyFrom(ctx, pgx.Identifier{"events"}, copyColumns, pgx.CopyFromRows(rows))
	return n, translate(err, "events")
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
