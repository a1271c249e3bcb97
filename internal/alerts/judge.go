package alerts

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/webhook"
)

// judgement is one project's share of one batch.
type judgement struct {
	h       *Hook
	tx      *postgres.WriteTx
	project string
	pol     postgres.Policy
	now     time.Time
	envs    []webhook.Envelope
	notices []postgres.Notice
}

func (j *judgement) run(ctx context.Context, events []event.Event, spend []postgres.SpendChange) error {
	if err := j.guardrails(ctx, events); err != nil {
		return err
	}
	if err := j.budget(ctx, spend); err != nil {
		return err
	}
	if err := j.tx.Notify(ctx, j.project, j.notices); err != nil {
		return err
	}
	if !j.pol.HasWebhook {
		return nil
	}
	return j.tx.Enqueue(ctx, j.envs)
}

func (j *judgement) guardrails(ctx context.Context, events []event.Event) error {
	var calls []guardrail.Call
	var traces []string
	for _, e := range events {
		if _, ok := j.pol.Rules.Active(e.AgentName); !ok {
			continue
		}
		calls = append(calls, guardrail.Call{Agent: e.AgentName, Model: e.Model, Tool: e.ToolName, TS: e.Timestamp})
		if e.TraceID != "" && e.Workflow != "" && !slices.Contains(traces, e.TraceID) {
			traces = append(traces, e.TraceID)
		}
	}
	if len(calls) == 0 {
		return nil
	}
	runs := map[string][]guardrail.Run{}
	if len(traces) > 0 && j.hasRunLimits() {
		var err error
		if runs, err = j.tx.RunTotals(ctx, j.project, traces); err != nil {
			return err
		}
	}
	breaches := guardrail.JudgeBatch(j.pol.Rules, calls, runs)
	if len(breaches) == 0 {
		return nil
	}
	fresh, err := j.tx.ClaimBreachAlerts(ctx, j.project, breaches, j.now.Truncate(time.Hour))
	if err != nil {
		return err
	}
	for i, b := range breaches {
		if !fresh[i] {
			continue
		}
		if err := j.alert(webhook.TypeGuardrailBreach, breachPayload(j.project, b),
			fmt.Sprintf("Guardrail breach: %s", b.Agent),
			fmt.Sprintf("%s by agent %s on %s (%d)", b.Kind, b.Agent, b.Subject, b.Count)); err != nil {
			return err
		}
	}
	return nil
}

func (j *judgement) hasRunLimits() bool {
	for _, g := range j.pol.Rules.Guardrails {
		if g.Enabled && (g.MaxToolCallsPerRun != nil || g.MaxCostPerRunNano != nil) {
			return true
		}
	}
	return false
}

// budget records each threshold the month's metered spend has reached and
// no transaction recorded yet (a budget set when spend is already past a
// threshold alerts it at the next batch).
func (j *judgement) budget(ctx context.Context, spend []postgres.SpendChange) error {
	b := j.pol.Budget
	if b == nil || !b.Enabled {
		return nil
	}
	month := postgres.MonthStart(j.now)
	for _, s := range spend {
		if !s.Month.Equal(month) {
			continue // late calls of a past month move no current threshold
		}
		reached := j.unclaimed(month, Reached(b.BudgetNano, b.Thresholds, s.AfterNano))
		if len(reached) == 0 {
			continue
		}
		fresh, err := j.tx.ClaimThresholds(ctx, j.project, month, reached)
		if err != nil {
			return err
		}
		for _, t := range fresh {
			p := crossingPayload(*b, t, s.AfterNano, month)
			if err := j.alert(webhook.TypeBudgetCrossed, p, fmt.Sprintf("Budget %d%% reached", t),
				fmt.Sprintf("Metered spend this month is %s USD of a %s USD budget", p.SpendMTD, p.Budget)); err != nil {
				return err
			}
		}
		// Thresholds another transaction recorded are committed (ON
		// CONFLICT waited for it); this batch's own are remembered at the
		// next batch, once they are known to have committed.
		j.h.remember(j.project, month, slices.DeleteFunc(reached, func(t int32) bool { return slices.Contains(fresh, t) }))
	}
	return nil
}

// unclaimed drops thresholds this instance already saw recorded.
func (j *judgement) unclaimed(month time.Time, reached []int32) []int32 {
	j.h.mu.Lock()
	defer j.h.mu.Unlock()
	return slices.DeleteFunc(reached, func(t int32) bool { return j.h.claimed[claimKey{j.project, month, t}] })
}

// remember notes thresholds known to be recorded in committed rows, so
// later batches of the month skip the claim.
func (h *Hook) remember(project string, month time.Time, ts []int32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range ts {
		h.claimed[claimKey{project, month, t}] = true
	}
}

// Reached lists the thresholds (percent of budgetNano) spend has reached,
// in exact integer arithmetic.
func Reached(budgetNano int64, thresholds []int32, spendNano int64) []int32 {
	var out []int32
	s := new(big.Int).Mul(big.NewInt(spendNano), big.NewInt(100))
	for _, t := range thresholds {
		if s.Cmp(new(big.Int).Mul(big.NewInt(budgetNano), big.NewInt(int64(t)))) >= 0 {
			out = append(out, t)
		}
	}
	return out
}

// alert prepares the notification of owners and admins and the delivery;
// run writes them all at once.
func (j *judgement) alert(typ string, data any, title, body string) error {
	env, err := webhook.NewEnvelope(typ, j.project, data, j.now)
	if err != nil {
		return err
	}
	j.notices = append(j.notices, postgres.Notice{Type: typ, Title: title, Body: body, Data: env.Data})
	j.envs = append(j.envs, env)
	return nil
}
