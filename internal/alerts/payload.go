package alerts

import (
	"encoding/json"
	"math/big"
	"time"

	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// BreachPayload is the data of a guardrail.breach delivery
// (docs/guardrails.md "Webhooks"). Limit and observed are USD for
// run_cost_over_limit, counts otherwise; limit is null for tool and model
// kinds.
type BreachPayload struct {
	ProjectID  string       `json:"project_id"`
	AgentName  string       `json:"agent_name"`
	Kind       string       `json:"kind"`
	Subject    string       `json:"subject"`
	Count      int64        `json:"count"`
	Limit      *json.Number `json:"limit"`
	Observed   json.Number  `json:"observed"`
	ObservedAt string       `json:"observed_at"`
}

// Figure is a breach value as JSON: USD for money kinds, else an integer.
func Figure(b guardrail.Breach, v int64) json.Number {
	if b.Money() {
		return json.Number(pricing.FormatUSD(v))
	}
	return json.Number(big.NewInt(v).String())
}

func breachPayload(project string, b guardrail.Breach) BreachPayload {
	p := BreachPayload{ProjectID: project, AgentName: b.Agent, Kind: string(b.Kind), Subject: b.Subject,
		Count: b.Count, Observed: Figure(b, b.Observed), ObservedAt: b.LastSeen.UTC().Format(time.RFC3339Nano)}
	if b.Limit != nil {
		l := Figure(b, *b.Limit)
		p.Limit = &l
	}
	return p
}

// CrossingPayload is the data of a budget.threshold_crossed delivery.
type CrossingPayload struct {
	Threshold          int32       `json:"threshold"`
	Budget             json.Number `json:"budget"`
	SpendMTD           json.Number `json:"spend_mtd"`
	UtilizationPercent float64     `json:"utilization_percent"`
	Mode               string      `json:"mode"`
	Exhausted          bool        `json:"exhausted"`
	PeriodEndsAt       string      `json:"period_ends_at"`
}

func crossingPayload(b postgres.Budget, t int32, spend int64, month time.Time) CrossingPayload {
	return CrossingPayload{Threshold: t, Budget: json.Number(pricing.FormatUSD(b.BudgetNano)),
		SpendMTD: json.Number(pricing.FormatUSD(spend)), UtilizationPercent: Utilization(spend, b.BudgetNano),
		Mode: b.Mode, Exhausted: spend >= b.BudgetNano, PeriodEndsAt: PeriodEnd(month).Format(time.RFC3339)}
}

// Utilization is spend as a percent of budget, two decimals (half up).
func Utilization(spend, budget int64) float64 {
	num := new(big.Int).Mul(big.NewInt(spend), big.NewInt(10000))
	q, r := new(big.Int).QuoRem(num, big.NewInt(budget), new(big.Int))
	if new(big.Int).Mul(r, big.NewInt(2)).Cmp(big.NewInt(budget)) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	// q can pass int64 (a spend far above a tiny budget): read it whole.
	f, _ := new(big.Float).SetInt(q).Float64()
	return f / 100
}

// PeriodEnd is the end of month's period: the next month's first instant.
func PeriodEnd(month time.Time) time.Time { return month.AddDate(0, 1, 0) }
