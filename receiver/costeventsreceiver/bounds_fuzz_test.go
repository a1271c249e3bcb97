package costeventsreceiver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/exporter/postgresexporter"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/costapitest"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/processor/costprocessor"
)

// pipeline is the real receiver → cost processor → postgres exporter over
// the real costapi extension, and a project to send batches for.
type pipeline struct {
	r       *costReceiver
	db      *postgres.DB
	project string
}

func newPipeline(t testing.TB) *pipeline {
	t.Helper()
	ctx := context.Background()
	host, ext := costapitest.Start(t)
	ef := postgresexporter.NewFactory()
	exp, err := ef.CreateLogs(ctx, exportertest.NewNopSettings(ef.Type()), ef.CreateDefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pf := costprocessor.NewFactory()
	proc, err := pf.CreateLogs(ctx, processortest.NewNopSettings(pf.Type()), pf.CreateDefaultConfig(), exp)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Start(ctx, host); err != nil {
		t.Fatal(err)
	}
	if err := proc.Start(ctx, host); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proc.Shutdown(ctx); _ = exp.Shutdown(ctx) })
	return &pipeline{r: newTestReceiver(proc), db: ext.DB(), project: costapitest.NewProject(t, ext.DB())}
}

// post sends a batch body as the project's API key would.
func (p *pipeline) post(body string) (int, batchResult) {
	k := access.NewPrincipal(access.APIKey, nil)
	k.ProjectID = p.project
	req := httptest.NewRequest("POST", "/v1/events/batch", strings.NewReader(body))
	req = req.WithContext(access.NewContext(req.Context(), k))
	w := httptest.NewRecorder()
	respond.Handler(zap.NewNop(), p.r.batch).ServeHTTP(w, req)
	var out batchResult
	_ = json.Unmarshal(w.Body.Bytes(), &out)
	return w.Code, out
}

var fuzzSeq atomic.Int64

// FuzzExtremeNumbers sends one good call and one call with fuzzed numbers
// (token counts, latency and cost as JSON number text: huge, negative,
// fractional, exponents) through decode, validation, pricing, storage,
// the rollup merge and a report. Whatever the numbers: the answer is 200
// (never a 5xx), the good call is stored, the fuzzed call is stored with
// every value within the bounds or rejected naming a field, and the
// report, the merged rollups, the month's counter and the project's totals
// agree with the stored calls, exactly.
func FuzzExtremeNumbers(f *testing.F) {
	for _, s := range [][5]string{
		{"9007199254740991", "0", "0", "", ""}, // 2^53−1 tokens
		{"1000000000", "1000000000", "1000000000", "1000000", "1000000000"},
		{"1000000001", "1", "0", "", ""},
		{"1e9", "1E9", "0", "1e6", "0"},
		{"10", "5", "0", "9223372036.854775807", ""},
		{"10", "5", "0", "1e400", "1e400"},
		{"92233720368547758070", "5", "0", "", "-1"},
		{"-0", "5.0", "0.0", "0.000000001", "1.5"},
		{"100", "200", "90", "1000000.0000000001", "12"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	p := newPipeline(f)
	f.Fuzz(func(t *testing.T, input, output, cached, cost, latency string) {
		var extra []string
		for _, kv := range [][2]string{{"input_tokens", input}, {"output_tokens", output}, {"cached_tokens", cached},
			{"cost", cost}, {"latency_ms", latency}} {
			switch {
			case jsonNumber(kv[1]):
				extra = append(extra, fmt.Sprintf("%q:%s", kv[0], kv[1]))
			case kv[0] == "input_tokens" || kv[0] == "output_tokens":
				return // required, and numbers are what this target explores
			}
		}
		n := fuzzSeq.Add(1)
		at := time.Now().UTC().Format(time.RFC3339Nano)
		good := fmt.Sprintf(`{"event_id":"good-%d","agent_name":"a","model":"gpt-4o","input_tokens":10,"output_tokens":5,"timestamp":%q}`, n, at)
		fuzzed := fmt.Sprintf(`{"event_id":"fuzz-%d","agent_name":"a","model":"gpt-4o","timestamp":%q,%s}`, n, at, strings.Join(extra, ","))
		code, res := p.post(`{"events":[` + good + `,` + fuzzed + `]}`)
		if code != http.StatusOK {
			t.Fatalf("status %d for %s", code, fuzzed)
		}
		if res.EventsStored+int64(res.EventsRejected) != 2 || res.EventsStored < 1 {
			t.Fatalf("stored %d rejected %d for %s: %+v", res.EventsStored, res.EventsRejected, fuzzed, res.Rejected)
		}
		for _, rej := range res.Rejected {
			if rej.Index != 1 || rej.Field == "" {
				t.Fatalf("rejection %+v for %s", rej, fuzzed)
			}
		}
		p.check(t)
	})
}

// check compares every sum llmcost keeps of the project with the stored
// calls, after a merge; the stored values must lie within the bounds.
func (p *pipeline) check(t *testing.T) {
	ctx := context.Background()
	if _, err := p.db.MergeRollups(ctx); err != nil {
		t.Fatalf("merge: %v", err)
	}
	var maxTokens, maxCost, events, rolled, month, money int64
	if err := p.db.Pool.QueryRow(ctx, `SELECT
  (SELECT coalesce(max(greatest(input_tokens, output_tokens, cached_tokens)), 0) FROM events WHERE project_id = $1),
  (SELECT coalesce(max(greatest(cost_nano, catalogue_cost_nano)), 0) FROM events WHERE project_id = $1),
  (SELECT sum(cost_nano)::bigint FROM events WHERE project_id = $1),
  (SELECT coalesce(sum(cost_nano), 0)::bigint FROM rollup_hour WHERE project_id = $1 AND dim = 'agent'),
  (SELECT coalesce(sum(metered_nano), 0)::bigint FROM spend_month WHERE project_id = $1),
  (SELECT money_nano::bigint FROM project_totals WHERE project_id = $1)`, p.project).
		Scan(&maxTokens, &maxCost, &events, &rolled, &month, &money); err != nil {
		t.Fatal(err)
	}
	if maxTokens > pricing.MaxCallTokens || maxCost > pricing.MaxCallCostNano {
		t.Fatalf("a stored call beyond the bounds: %d tokens, %d nano", maxTokens, maxCost)
	}
	if rolled != events || month != events || money < events || money > pricing.MaxProjectTotal {
		t.Fatalf("events %d nano, rollups %d, month %d, totals %d", events, rolled, month, money)
	}
	now := time.Now().UTC().Add(time.Minute)
	res, err := p.db.ReadWindows(ctx, postgres.WindowQuery{ProjectID: p.project, Dim: "agent",
		Segments: analytics.Decompose(analytics.Window(analytics.Range("90d"), now), analytics.Day)})
	if err != nil || len(res) != 1 || res[0].AllCostNano != events {
		t.Fatalf("report: %+v %v, want %d nano", res, err, events)
	}
}

// jsonNumber reports whether s is exactly one JSON number.
func jsonNumber(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.InputOffset() != int64(len(s)) {
		return false
	}
	_, ok := v.(json.Number)
	return ok
}
