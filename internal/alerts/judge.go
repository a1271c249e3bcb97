package alerts

import (
	"context"
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
	h         *Hook
	tx        *postgres.WriteTx
	project   string
	pol       postgres.Policy
	now       time.Time
	pre       postgres.PrefetchedTotals // run totals read with the insert
	breaches  []guardrail.Breach        // not known to be alerted this hour
	crossings []postgres.Crossing       // thresholds reached, not known recorded
}

// judge finds what may need alerting, reading only.
func (j *judgement) judge(ctx context.Context, events []event.Event, spend []postgres.SpendChange) error {
	if err := j.judgeGuardrails(ctx, events); err != nil {
		return err
	}
	j.judgeBudget(spend)
	return nil
}

func (j *judgement) judgeGuardrails(ctx context.Context, events []event.Event) error {
	var calls []guardrail.Call
	for _, e := range events {
		if _, ok := j.pol.Rules.Active(e.AgentName); ok {
			calls = append(calls, guardrail.Call{Agent: e.AgentName, Model: e.Model, Tool: e.ToolName, TS: e.Timestamp})
		}
	}
	if len(calls) == 0 {
		return nil
	}
	hour := j.now.Truncate(time.Hour)
	runs := map[string][]guardrail.Run{}
	if traces := j.h.runTraces(j.project, j.pol, events, hour); len(traces) > 0 {
		// Read with the insert when the cached policy asked for them
		// (WantRunTotals); the policy moved since: read them now.
		if j.pre.ByAgent != nil && j.pre.Version == j.pol.Version {
			runs = j.pre.ByAgent
		} else {
			var err error
			if runs, err = j.tx.RunTotals(ctx, j.project, traces); err != nil {
				return err
			}
		}
	}
	j.h.mu.Lock()
	defer j.h.mu.Unlock()
	for _, b := range guardrail.JudgeBatch(j.pol.Rules, calls, runs) {
		if !j.h.alerted[alertKey{j.project, b.Agent, b.Subject, string(b.Kind), hour}] {
			j.breaches = append(j.breaches, b)
		}
	}
	return nil
}

// runTraces are the runs whose totals judging under pol needs: those of
// guarded agents' calls inside a workflow, when a guardrail has a per-run
// limit (none otherwise), less the runs this instance knows alerted in
// hour for every per-run limit of their agent's guardrail: a run's alerts
// are all sent, so its totals could only repeat them. The repeated case,
// the common one, thus reads nothing. (The run is looked up under the
// agent of the batch's call; a run whose first call, and so its agent,
// arrives later is read again.)
func (h *Hook) runTraces(project string, pol postgres.Policy, events []event.Event, hour time.Time) []string {
	if !hasRunLimits(pol) {
		return nil
	}
	var traces []string
	seen := map[string]bool{}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range events {
		if e.TraceID == "" || e.Workflow == "" || seen[e.TraceID] {
			continue
		}
		g, ok := pol.Rules.Active(e.AgentName)
		if !ok || h.runAlerted(project, g, e.AgentName, e.TraceID, hour) {
			continue
		}
		seen[e.TraceID] = true
		traces = append(traces, e.TraceID)
	}
	return traces
}

// runAlerted: every per-run limit of g has its alert of hour for the run.
// Callers hold h.mu.
func (h *Hook) runAlerted(project string, g guardrail.Guardrail, agent, trace string, hour time.Time) bool {
	for _, k := range []struct {
		set  bool
		kind guardrail.Kind
	}{{g.MaxToolCallsPerRun != nil, guardrail.ToolCallsOverLimit}, {g.MaxCostPerRunNano != nil, guardrail.RunCostOverLimit}} {
		if k.set && !h.alerted[alertKey{project, agent, trace, string(k.kind), hour}] {
			return false
		}
	}
	return true
}

func hasRunLimits(pol postgres.Policy) bool {
	for _, g := range pol.Rules.Guardrails {
		if g.Enabled && (g.MaxToolCallsPerRun != nil || g.MaxCostPerRunNano != nil) {
			return true
		}
	}
	return false
}

// judgeBudget lists each threshold the current month's metered spend has
// reached and this instance does not know to be recorded (a budget set
// when spend is already past a threshold alerts it at the next batch).
// Late calls of a past month move no current threshold.
func (j *judgement) judgeBudget(spend []postgres.SpendChange) {
	b := j.pol.Budget
	if b == nil || !b.Enabled {
		return
	}
	month := postgres.MonthStart(j.now)
	for _, s := range spend {
		if !s.Month.Equal(month) {
			continue
		}
		if reached := j.unclaimed(month, Reached(b.BudgetNano, b.Thresholds, s.AfterNano)); len(reached) > 0 {
			j.crossings = append(j.crossings, postgres.Crossing{Month: month, Thresholds: reached, SpendNano: s.AfterNano,
				BudgetNano: b.BudgetNano, Mode: b.Mode})
		}
	}
}

// record queues the breaches and crossings for the alert drain
// (drain.go): one row, sent with the batch's COMMIT.
func (j *judgement) record() error {
	return j.tx.QueueAlerts(j.project, j.now.Truncate(time.Hour), j.now, j.breaches, j.crossings)
}

// unclaimed drops thresholds this instance already saw recorded.
func (j *judgement) unclaimed(month time.Time, reached []int32) []int32 {
	j.h.mu.Lock()
	defer j.h.mu.Unlock()
	return slices.DeleteFunc(reached, func(t int32) bool { return j.h.claimed[claimKey{j.project, month, t}] })
}

// maxRemembered bounds the memory of recorded alerts; forgetting only
// costs one more claim that conflicts.
const maxRemembered = 100_000

func (h *Hook) remember(k alertKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.alerted) >= maxRemembered {
		clear(h.alerted)
	}
	h.alerted[k] = true
}

// rememberThresholds notes thresholds known to be recorded in committed
// rows, so later batches of the month skip the claim.
func (h *Hook) rememberThresholds(project string, month time.Time, ts []int32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.claimed) >= maxRemembered {
		clear(h.claimed)
	}
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

// prepare builds an alert's delivery and its notice, found at at.
func prepare(typ, project string, data any, title, body string, at time.Time) (webhook.Envelope, postgres.Notice, error) {
	env, err := webhook.NewEnvelope(typ, project, data, at)
	if err != nil {
		return env, postgres.Notice{}, err
	}
	return env, postgres.Notice{Type: typ, Title: title, Body: body, Data: env.Data}, nil
}
