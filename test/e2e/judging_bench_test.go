package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/timings"
)

// judgingBatches is how many batches each side of BenchmarkJudgingOverHTTP
// sends.
const judgingBatches = 300

// BenchmarkJudgingOverHTTP is internal/alerts' BenchmarkIngestJudging as a
// client sees it: the same 100-call batches (5 agents, 10 runs with tools,
// a workflow, models outside some allow-lists) posted to
// /v1/events/batch of the built binary, alternately into a project without
// guardrails and one judged against five guardrails with every limit, two
// tool tags and a budget. It prints the median latency of each and the
// overhead: the median difference between each judged batch and the plain
// one sent beside it, over the median plain batch (docs/guardrails.md).
// The server prices every call.
func BenchmarkJudgingOverHTTP(b *testing.B) {
	for _, fresh := range []bool{true, false} {
		name := "repeated-breaches"
		if fresh {
			name = "new-breaches-every-batch"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				benchJudgingHTTP(b, fresh, name)
			}
		})
	}
}

func benchJudgingHTTP(b *testing.B, fresh bool, name string) {
	s := start(b, map[string]string{"LLMCOST_RATE_LIMIT": "100000000"})
	_, _, plainKey := s.account(b)
	token, guarded, guardedKey := s.account(b)
	for i := range 5 {
		s.call(b, "PUT", "/v1/projects/"+guarded+"/guardrails", token, map[string]any{
			"agent_name": fmt.Sprintf("agent-%d", i), "allowed_tools": []string{"search"}, "read_only": true,
			"allowed_models": []string{"gpt-4o-mini"}, "max_tool_calls_per_run": 3, "max_cost_per_run_usd": 0.001,
		}).must(b, http.StatusCreated)
	}
	for tool, access := range map[string]string{"search": "read", "write_file": "write"} {
		s.call(b, "PUT", "/v1/projects/"+guarded+"/guardrails/tool-tags", token,
			map[string]any{"tool_name": tool, "access": access}).must(b, http.StatusOK)
	}
	s.call(b, "PUT", "/v1/projects/"+guarded+"/budget", token,
		map[string]any{"budget": 1_000_000, "thresholds": []int{50, 80, 100}}).must(b, http.StatusOK)
	var without, with []time.Duration
	type side struct {
		key  string
		into *[]time.Duration
	}
	for n := range judgingBatches {
		// Which goes first alternates: the first of two requests measured
		// consistently slower here, whichever project it was for.
		order := []side{{plainKey, &without}, {guardedKey, &with}}
		if n%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, side := range order {
			body := judgingBatch(b, n, fresh)
			t0 := time.Now()
			s.call(b, "POST", "/v1/events/batch", side.key, body).must(b, http.StatusOK)
			*side.into = append(*side.into, time.Since(t0))
		}
	}
	// The judged side did breach: every agent's compliance record says so.
	comp := s.call(b, "GET", "/v1/guardrails/compliance?range=24h", guardedKey, nil).must(b, http.StatusOK)
	for _, a := range comp.Body["agents"].([]any) {
		if rec := a.(map[string]any); rec["status"] != "breach" {
			b.Fatalf("agent %v is %v: the judged batches found no breach", rec["agent_name"], rec["status"])
		}
	}
	// Each judged batch is paired with the plain one sent beside it, so the
	// machine's drift (other work on the two cores) cancels out of
	// the difference; the overhead is the median difference over the
	// median plain batch.
	o := timings.Paired(without, with)
	o.Report(b, "judged")
	fmt.Printf("%s over HTTP: a 100-call batch, median of %d: %s without guardrails, %s judged (5 guardrails, tags, budget); "+
		"median paired difference %s: %+.1f%%\n", name, len(with), o.Plain, o.Other, o.Diff, o.Percent)
}

// judgingBatch is batch n as JSON: 100 calls of agents agent-0…4 in ten
// runs (new ones in every batch when fresh, else the same ten), a third of
// them search and a third write_file tool calls, half on gpt-4o.
func judgingBatch(b *testing.B, n int, fresh bool) []byte {
	events := make([]map[string]any, 100)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for i := range events {
		trace := fmt.Sprintf("t-%d", i/10)
		if fresh {
			trace = fmt.Sprintf("t%d-%d", n, i/10)
		}
		e := map[string]any{"event_id": fmt.Sprintf("e%d-%d", n, i), "agent_name": fmt.Sprintf("agent-%d", i%5),
			"model": []string{"gpt-4o-mini", "gpt-4o"}[i%2], "input_tokens": 1000, "output_tokens": 100,
			"timestamp": now, "trace_id": trace, "workflow": "wf"}
		if tool := []string{"", "search", "write_file"}[i%3]; tool != "" {
			e["tool_name"] = tool
		}
		events[i] = e
	}
	body, err := json.Marshal(map[string]any{"events": events})
	if err != nil {
		b.Fatal(err)
	}
	return body
}
