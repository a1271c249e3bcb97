package postgres

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/event"
)

// eventCol is one column of the events table as the Go side writes and
// reads it. The list below names every written column ONCE: the ingest
// insert, the listing, COPY and re-pricing are all built from it.
type eventCol struct {
	name string
	typ  string // PostgreSQL array element type of the unnest parameter
	// null is the sentinel that stores NULL ("''" for text, "-1" for
	// integers); empty when the column is never NULL.
	null string
	// cast is applied after NULLIF (metadata arrives as text).
	cast string
	get  func(*event.Event) any
	// scan returns the destination the listing scans into.
	scan func(*event.Event, *scratch) any
}

// scratch holds values the listing reads before they reach an event.
type scratch struct{ meta string }

func str(f func(*event.Event) *string) (func(*event.Event) any, func(*event.Event, *scratch) any) {
	return func(e *event.Event) any { return *f(e) }, func(e *event.Event, _ *scratch) any { return f(e) }
}

func i64(f func(*event.Event) *int64) (func(*event.Event) any, func(*event.Event, *scratch) any) {
	return func(e *event.Event) any { return *f(e) }, func(e *event.Event, _ *scratch) any { return f(e) }
}

func boolean(f func(*event.Event) *bool) (func(*event.Event) any, func(*event.Event, *scratch) any) {
	return func(e *event.Event) any { return *f(e) }, func(e *event.Event, _ *scratch) any { return f(e) }
}

func col(name, typ, null string, get func(*event.Event) any, scan func(*event.Event, *scratch) any) eventCol {
	return eventCol{name: name, typ: typ, null: null, get: get, scan: scan}
}

func textCol(name, null string, f func(*event.Event) *string) eventCol {
	g, s := str(f)
	return col(name, "text", null, g, s)
}

func intCol(name, null string, f func(*event.Event) *int64) eventCol {
	g, s := i64(f)
	return col(name, "bigint", null, g, s)
}

func boolCol(name string, f func(*event.Event) *bool) eventCol {
	g, s := boolean(f)
	return col(name, "bool", "", g, s)
}

// eventCols are the events columns in insert order; project_id and
// event_id come first because the insert sorts on them.
var eventCols = []eventCol{
	textCol("project_id", "", func(e *event.Event) *string { return &e.ProjectID }),
	textCol("event_id", "", func(e *event.Event) *string { return &e.EventID }),
	col("ts", "timestamptz", "", func(e *event.Event) any { return e.Timestamp },
		func(e *event.Event, _ *scratch) any { return &e.Timestamp }),
	textCol("agent_name", "", func(e *event.Event) *string { return &e.AgentName }),
	textCol("model", "", func(e *event.Event) *string { return &e.Model }),
	intCol("input_tokens", "", func(e *event.Event) *int64 { return &e.InputTokens }),
	intCol("output_tokens", "", func(e *event.Event) *int64 { return &e.OutputTokens }),
	intCol("cached_tokens", "", func(e *event.Event) *int64 { return &e.CachedTokens }),
	intCol("cache_write_tokens", "", func(e *event.Event) *int64 { return &e.CacheWriteTokens }),
	intCol("cache_write_1h_tokens", "", func(e *event.Event) *int64 { return &e.CacheWrite1hTokens }),
	intCol("total_tokens", "", func(e *event.Event) *int64 { return &e.TotalTokens }),
	intCol("reasoning_tokens", "", func(e *event.Event) *int64 { return &e.ReasoningTokens }),
	intCol("cost_nano", "", func(e *event.Event) *int64 { return &e.CostNano }),
	boolCol("cost_provided", func(e *event.Event) *bool { return &e.CostProvided }),
	col("catalogue_cost_nano", "bigint", "-1", func(e *event.Event) any {
		if !e.Priced {
			return int64(-1)
		}
		return e.CatalogueCostNano
	}, func(e *event.Event, _ *scratch) any { return &e.CatalogueCostNano }),
	boolCol("priced", func(e *event.Event) *bool { return &e.Priced }),
	textCol("price_version", "", func(e *event.Event) *string { return &e.PriceVersion }),
	textCol("price_period", "", func(e *event.Event) *string { return &e.PricePeriod }),
	col("latency_ms", "bigint", "-1", func(e *event.Event) any {
		if e.LatencyMS == nil {
			return int64(-1)
		}
		return *e.LatencyMS
	}, func(e *event.Event, _ *scratch) any { return &e.LatencyMS }),
	boolCol("success", func(e *event.Event) *bool { return &e.Success }),
	textCol("error", "''", func(e *event.Event) *string { return &e.Error }),
	// NULL when the producer did not say (Claude Code, Gemini CLI).
	col("streaming", "bool", "", func(e *event.Event) any { return e.Streaming },
		func(e *event.Event, _ *scratch) any { return &e.Streaming }),
	textCol("trace_id", "''", func(e *event.Event) *string { return &e.TraceID }),
	textCol("span_id", "''", func(e *event.Event) *string { return &e.SpanID }),
	textCol("parent_span_id", "''", func(e *event.Event) *string { return &e.ParentSpanID }),
	textCol("workflow", "''", func(e *event.Event) *string { return &e.Workflow }),
	textCol("step_name", "''", func(e *event.Event) *string { return &e.StepName }),
	textCol("tool_name", "''", func(e *event.Event) *string { return &e.ToolName }),
	textCol("user_id", "''", func(e *event.Event) *string { return &e.UserID }),
	textCol("session_id", "''", func(e *event.Event) *string { return &e.SessionID }),
	col("billing", "text", "", func(e *event.Event) any { return billingOrAPI(e.Billing) },
		func(e *event.Event, _ *scratch) any { return &e.Billing }),
	textCol("source", "", func(e *event.Event) *string { return &e.Source }),
	{name: "metadata", typ: "text", null: "''", cast: "jsonb",
		get:  func(e *event.Event) any { return string(e.Metadata) },
		scan: func(_ *event.Event, s *scratch) any { return &s.meta }},
	intCol("read_savings_nano", "", func(e *event.Event) *int64 { return &e.ReadSavingsNano }),
	intCol("write_premium_nano", "", func(e *event.Event) *int64 { return &e.WritePremiumNano }),
	textCol("request_hash", "''", func(e *event.Event) *string { return &e.RequestHash }),
}

// columnNames lists the events columns, comma-separated.
func columnNames() string {
	names := make([]string, len(eventCols))
	for i, c := range eventCols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// copyNames are the events columns for COPY.
func copyNames() []string {
	names := make([]string, len(eventCols))
	for i, c := range eventCols {
		names[i] = c.name
	}
	return names
}

// selectList reads every column back for the listing: a NULL comes back as
// its sentinel, except latency_ms, which scans into a pointer.
func selectList() string {
	out := make([]string, len(eventCols))
	for i, c := range eventCols {
		switch {
		case c.name == "project_id":
			out[i] = "project_id::text"
		case c.name == "latency_ms":
			out[i] = c.name
		case c.cast != "":
			out[i] = fmt.Sprintf("coalesce(%s::text, %s)", c.name, c.null)
		case c.null != "":
			out[i] = fmt.Sprintf("coalesce(%s, %s)", c.name, c.null)
		default:
			out[i] = c.name
		}
	}
	return strings.Join(out, ", ")
}

// unnestInsert is the INSERT … SELECT FROM unnest(…) of a batch of events,
// in (project_id, event_id) order, skipping duplicates: those of the
// partition a row lands in by its primary key (ON CONFLICT without a
// target takes the routed partition's), those in a neighbouring month by
// replayProbe (partitions.go); RETURNING is the caller's. Each column is one array parameter named after it
// (columnArgs).
func unnestInsert() string {
	params := make([]string, len(eventCols))
	aliases := make([]string, len(eventCols))
	exprs := make([]string, len(eventCols))
	for i, c := range eventCols {
		alias := fmt.Sprintf("c%d", i)
		aliases[i] = alias
		params[i] = fmt.Sprintf("@%s::%s[]", c.name, c.typ)
		if c.name == "project_id" {
			params[i] = "@project_id::uuid[]"
		}
		e := alias
		if c.null != "" {
			e = fmt.Sprintf("NULLIF(%s, %s)", alias, c.null)
		}
		if c.cast != "" {
			e += "::" + c.cast
		}
		exprs[i] = e
	}
	return fmt.Sprintf(`INSERT INTO events (%s)
  SELECT %s
  FROM unnest(%s) AS t(%s)
  WHERE NOT %s
  ORDER BY c0, c1
  ON CONFLICT DO NOTHING`, columnNames(), strings.Join(exprs, ", "),
		strings.Join(params, ", "), strings.Join(aliases, ", "), replayProbe)
}

// columnArgs turns events into one array argument per column, named
// after it.
func columnArgs(events []event.Event) pgx.StrictNamedArgs {
	args := make(pgx.StrictNamedArgs, len(eventCols)+4)
	for _, c := range eventCols {
		switch c.typ {
		case "text":
			v := make([]string, len(events))
			for j := range events {
				v[j] = c.get(&events[j]).(string)
			}
			args[c.name] = v
		case "bigint":
			v := make([]int64, len(events))
			for j := range events {
				v[j] = c.get(&events[j]).(int64)
			}
			args[c.name] = v
		case "bool":
			// *bool: a nullable column (streaming) sends NULL for nil.
			v := make([]*bool, len(events))
			for j := range events {
				switch b := c.get(&events[j]).(type) {
				case bool:
					v[j] = &b
				case *bool:
					v[j] = b
				}
			}
			args[c.name] = v
		case "timestamptz":
			v := make([]time.Time, len(events))
			for j := range events {
				v[j] = c.get(&events[j]).(time.Time)
			}
			args[c.name] = v
		}
	}
	return args
}

// copyRow is one event as a COPY row: sentinels become NULL.
func copyRow(e *event.Event) []any {
	row := make([]any, len(eventCols))
	for i, c := range eventCols {
		v := c.get(e)
		switch {
		case c.null == "''" && v == "":
			v = nil
		case c.null == "-1" && v == int64(-1):
			v = nil
		}
		row[i] = v
	}
	return row
}

func billingOrAPI(b string) string {
	if b == "" {
		return event.BillingAPI
	}
	return b
}
