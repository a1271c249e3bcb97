package costprocessor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/semconv"
)

const testProject = "0b6f7b1e-4c1a-4f6e-9a53-1d2c3b4a5f60"

type staticCatalogue struct{}

func (staticCatalogue) Catalogue() *pricing.Catalogue { return pricing.Builtin() }

func newTestProcessor(projectID string) *costProcessor {
	return &costProcessor{cfg: &Config{ProjectID: projectID}, logger: zap.NewNop(), src: staticCatalogue{}}
}

// rawClaude appends a Claude Code api_request record as the stock otlp
// receiver hands it over, plus a user_prompt that is no model call.
func rawClaude(ld plog.Logs, requestID, model string) {
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "claude-code")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("com.anthropic.claude_code.events")
	lr := sl.LogRecords().AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Now().Add(-time.Minute)))
	lr.Body().SetStr("claude_code.api_request")
	a := lr.Attributes()
	a.PutStr("event.name", "api_request")
	a.PutStr("request_id", requestID)
	a.PutStr("model", model)
	a.PutStr("input_tokens", "1000")
	a.PutStr("output_tokens", "500")
	prompt := sl.LogRecords().AppendEmpty()
	prompt.Body().SetStr("claude_code.user_prompt")
	prompt.Attributes().PutStr("prompt", "secret prompt text")
}

func calls(t *testing.T, ld plog.Logs) []event.Event {
	t.Helper()
	var out []event.Event
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				ev, err := semconv.GetEvent(lrs.At(k))
				if err != nil {
					t.Fatalf("record %d/%d/%d is not canonical: %v", i, j, k, err)
				}
				out = append(out, ev)
			}
		}
	}
	return out
}

func TestRawAgentLogsBecomePricedCallsOfTheProject(t *testing.T) {
	ld := plog.NewLogs()
	canonical := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	semconv.PutEvent(canonical, &event.Event{ProjectID: "11111111-1111-4111-8111-111111111111", EventID: "batch-1",
		AgentName: "a", Model: "gpt-4o", InputTokens: 10, Timestamp: time.Now(), Source: "batch"})
	rawClaude(ld, "req_1", "claude-sonnet-4-5")

	res := &ingest.Result{} // as from the costevents receiver
	out, err := newTestProcessor(testProject).processLogs(ingest.NewContext(context.Background(), res), ld)
	if err != nil {
		t.Fatal(err)
	}
	got := calls(t, out)
	if len(got) != 2 {
		t.Fatalf("want the batch call and the converted call, got %+v", got)
	}
	if got[0].EventID != "batch-1" || got[0].ProjectID != "11111111-1111-4111-8111-111111111111" || got[0].Source != "batch" {
		t.Errorf("a canonical record must pass untouched: %+v", got[0])
	}
	c := got[1]
	if c.ProjectID != testProject || c.Source != "otlp:claude-code" || c.InputTokens != 1000 || !c.Priced ||
		c.CostNano != 10_500_000 || len(c.EventID) != 64 {
		t.Errorf("converted call %+v", c)
	}
}

// Behind a stock receiver nothing is canonical: a record posing as one
// cannot name another project.
func TestForeignCanonicalRecordsAreNotTrusted(t *testing.T) {
	ld := plog.NewLogs()
	semconv.PutEvent(ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty(),
		&event.Event{ProjectID: "11111111-1111-4111-8111-111111111111", EventID: "spoof", AgentName: "a",
			Model: "gpt-4o", InputTokens: 10, Timestamp: time.Now()})
	rawClaude(ld, "req_1", "claude-sonnet-4-5")
	out, err := newTestProcessor(testProject).processLogs(context.Background(), ld)
	if err != nil {
		t.Fatal(err)
	}
	if got := calls(t, out); len(got) != 1 || got[0].ProjectID != testProject || got[0].EventID == "spoof" {
		t.Fatalf("want only the converted call of the configured project, got %+v", got)
	}
}

func TestOnlyNonModelRecordsAreSkipped(t *testing.T) {
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.Body().SetStr("GET /healthz 200")
	_, err := newTestProcessor("").processLogs(context.Background(), ld)
	if !errors.Is(err, processorhelper.ErrSkipProcessingData) || ld.LogRecordCount() != 0 {
		t.Fatalf("err %v, %d records left", err, ld.LogRecordCount())
	}
}

func TestModelCallsWithoutProjectAreRefusedPermanently(t *testing.T) {
	ld := plog.NewLogs()
	rawClaude(ld, "req_1", "claude-sonnet-4-5")
	_, err := newTestProcessor("").processLogs(context.Background(), ld)
	if !consumererror.IsPermanent(err) || !strings.Contains(err.Error(), "project_id") {
		t.Fatalf("got %v, want a permanent error naming project_id", err)
	}
}

func TestInvalidCallsGoToTheRequestResult(t *testing.T) {
	ld := plog.NewLogs()
	rawClaude(ld, "req_1", "claude-sonnet-4-5")
	rawClaude(ld, "req_2", "") // no model: rejected
	res := &ingest.Result{}
	out, err := newTestProcessor(testProject).processLogs(ingest.NewContext(context.Background(), res), ld)
	if err != nil {
		t.Fatal(err)
	}
	rej := res.Rejections()
	if len(calls(t, out)) != 1 || len(rej) != 1 || !strings.HasPrefix(rej[0].Reason, "missing or empty model") {
		t.Fatalf("calls %d, rejections %+v", len(calls(t, out)), rej)
	}
	// Without a result (behind a stock receiver) they are logged, not lost silently.
	ld = plog.NewLogs()
	rawClaude(ld, "req_3", "")
	if _, err := newTestProcessor(testProject).processLogs(context.Background(), ld); !errors.Is(err, processorhelper.ErrSkipProcessingData) {
		t.Fatalf("got %v, want the empty request skipped", err)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		project, err string
	}{
		{"", ""},
		{testProject, ""},
		{strings.ToUpper(testProject), ""},
		{"my-project", "project_id: must be a UUID"},
		{"{" + testProject + "}", "project_id: must be a UUID"},
		{"0b6f7b1e4c1a4f6e9a531d2c3b4a5f60", "project_id: must be a UUID"},
	}
	for _, c := range cases {
		cfg := createDefaultConfig().(*Config)
		cfg.ProjectID = c.project
		err := cfg.Validate()
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("project_id %q: got %v, want %q", c.project, err, c.err)
		}
	}
}
