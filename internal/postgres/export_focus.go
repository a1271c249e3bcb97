package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// DailyUsage is one day's calls of a project for one model, billing type
// and agent: the grain of the FOCUS export.
type DailyUsage struct {
	Day       time.Time
	Model     string
	Billing   string
	AgentName string
	Calls     int64
	Tokens    int64
	CostNano  int64
	// ListNano is the calls at the catalogue's prices (their cost where
	// the catalogue did not price them).
	ListNano int64
	// Tags are the calls' values of the project's declared tag keys, as
	// the tag rollups count them (TagOther past the bound), without the
	// keys the calls do not carry (TagNone).
	Tags map[string]string
}

// The rollups keep one dimension per row (a day's model rows, or its
// billing rows, never model and billing together) and no catalogue cost,
// so this reads the calls of the range, by events_project_ts_idx; the
// groups are few (days × models × billing types × agents).
const dailyUsageSQL = `
SELECT date_trunc('day', ts, 'UTC'), model, billing, agent_name, count(*), sum(total_tokens), sum(cost_nano),
    sum(CASE WHEN priced THEN coalesce(catalogue_cost_nano, cost_nano) ELSE cost_nano END)
FROM events
WHERE project_id = $1 AND ts >= $2 AND ts < $3
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4`

// dailyTaggedSQL is dailyUsageSQL for a project with declared tag keys
// (@keys): the calls are grouped by their values too, each value summed
// as itself first (llmcost_tag_value, cheap per call) and then, per group,
// mapped as the rollups map it: a value neither reserved nor admitted
// counts as (other) once the key holds @max_values values.
const dailyTaggedSQL = `
WITH g AS (
  SELECT date_trunc('day', ts, 'UTC') AS day, model, billing, agent_name,
    ARRAY(SELECT llmcost_tag_value(e.metadata -> k.k) FROM unnest(@keys::text[]) WITH ORDINALITY AS k(k, i) ORDER BY k.i) AS vals,
    count(*) AS calls, sum(total_tokens) AS tokens, sum(cost_nano) AS cost,
    sum(CASE WHEN priced THEN coalesce(catalogue_cost_nano, cost_nano) ELSE cost_nano END) AS list
  FROM events e
  WHERE project_id = @project_id AND ts >= @from AND ts < @to
  GROUP BY 1, 2, 3, 4, 5
)
SELECT day, model, billing, agent_name, ARRAY(
    SELECT CASE WHEN x.v LIKE '(%' OR pt.admitted < @max_values
        OR EXISTS (SELECT 1 FROM tag_values tv WHERE tv.project_id = @project_id AND tv.tag = x.k AND tv.value = x.v)
      THEN x.v ELSE '` + TagOther + `' END
    FROM unnest(@keys::text[], g.vals) WITH ORDINALITY AS x(k, v, i)
      JOIN project_tags pt ON pt.project_id = @project_id AND pt.tag = x.k
    ORDER BY x.i) AS tags,
  sum(calls)::bigint, sum(tokens)::bigint, sum(cost)::bigint, sum(list)::bigint
FROM g
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5`

// DailyUsage sums a project's calls in [from, to) per UTC day, model,
// billing type, agent and values of the declared tag keys.
func (db *DB) DailyUsage(ctx context.Context, projectID string, from, to time.Time) ([]DailyUsage, error) {
	keys, err := db.Tags(ctx, projectID)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Key
	}
	sql, args := dailyUsageSQL, []any{projectID, from, to}
	if len(names) > 0 {
		sql, args = dailyTaggedSQL, []any{pgx.StrictNamedArgs{"project_id": projectID, "from": from, "to": to,
			"keys": names, "max_values": int32(MaxTagValues)}}
	}
	rows, err := db.Pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, translate(err, "events")
	}
	defer rows.Close()
	var out []DailyUsage
	for rows.Next() {
		var u DailyUsage
		var vals []string
		dest := []any{&u.Day, &u.Model, &u.Billing, &u.AgentName, &u.Calls, &u.Tokens, &u.CostNano, &u.ListNano}
		if len(names) > 0 {
			dest = slices.Insert(dest, 4, any(&vals))
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, translate(err, "events")
		}
		u.Day = u.Day.UTC()
		for i, v := range vals {
			if v != TagNone && i < len(names) {
				if u.Tags == nil {
					u.Tags = map[string]string{}
				}
				u.Tags[names[i]] = v
			}
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "events")
	}
	return out, nil
}
