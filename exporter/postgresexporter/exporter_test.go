package postgresexporter

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/costapitest"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/semconv"
)

// started creates the exporter by its factory and starts it with a host
// holding the real costapi extension; it returns the exporter and a project.
func started(t *testing.T) (exporter.Logs, string) {
	t.Helper()
	host, ext := costapitest.Start(t)
	f := NewFactory()
	e, err := f.CreateLogs(context.Background(), exportertest.NewNopSettings(f.Type()), f.CreateDefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), host); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return e, costapitest.NewProject(t, ext.DB())
}

// batch builds one request of priced call records, as the processor hands
// them on.
func batch(project string, ids ...string) plog.Logs {
	ld := plog.NewLogs()
	records := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for _, id := range ids {
		ev := event.Event{ProjectID: project, EventID: id, AgentName: "a", Model: "gpt-4o", InputTokens: 10,
			OutputTokens: 5, TotalTokens: 15, CostNano: 42, Priced: true, Timestamp: time.Now().UTC(),
			Success: true, Billing: event.BillingAPI, Source: "batch"}
		semconv.PutEvent(records.AppendEmpty(), &ev)
	}
	return ld
}

// push sends ld as the costevents receiver does and returns the filled result.
func push(t *testing.T, e exporter.Logs, ld plog.Logs) (*ingest.Result, error) {
	t.Helper()
	res := &ingest.Result{}
	return res, e.ConsumeLogs(ingest.NewContext(context.Background(), res), ld)
}

func TestStoresABatchAndFillsTheResult(t *testing.T) {
	e, project := started(t)
	res, err := push(t, e, batch(project, "e1", "e2", "e3"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Fills() != 1 || res.Stored.Load() != 3 || res.Duplicate.Load() != 0 {
		t.Fatalf("fills %d stored %d duplicate %d", res.Fills(), res.Stored.Load(), res.Duplicate.Load())
	}
}

// A replay is counted as a duplicate, never stored twice.
func TestADuplicateIsCountedNotStored(t *testing.T) {
	e, project := started(t)
	if _, err := push(t, e, batch(project, "e1", "e2")); err != nil {
		t.Fatal(err)
	}
	res, err := push(t, e, batch(project, "e2", "e3"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stored.Load() != 1 || res.Duplicate.Load() != 1 {
		t.Fatalf("stored %d duplicate %d, want 1 and 1", res.Stored.Load(), res.Duplicate.Load())
	}
}

// With the database down the write fails retryably: not permanent, so the
// receiver answers 503 with Retry-After and the client sends it again.
func TestADatabaseOutageIsRetryable(t *testing.T) {
	e, project := started(t)
	pgtest.StopServer(t)
	res, err := push(t, e, batch(project, "e1"))
	if err == nil {
		t.Fatal("a write with the database down succeeded")
	}
	if consumererror.IsPermanent(err) {
		t.Fatalf("outage reported as permanent: %v", err)
	}
	if got := apierr.As(err); got.Code != apierr.Unavailable || respond.Status(got.Code) != 503 {
		t.Fatalf("outage maps to %s (%d), want unavailable (503): %v", got.Code, respond.Status(got.Code), err)
	}
	if res.Fills() != 0 {
		t.Fatal("a failed write filled the result")
	}
	pgtest.StartServer(t)
	var ok bool
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !ok; time.Sleep(100 * time.Millisecond) {
		res, err = push(t, e, batch(project, "e1"))
		ok = err == nil
	}
	if !ok || res.Stored.Load() != 1 {
		t.Fatalf("after the database came back: %v", err)
	}
}

// Records that are not canonical calls are skipped, never stored.
func TestNonCanonicalRecordsAreSkipped(t *testing.T) {
	e, project := started(t)
	ld := batch(project, "e1")
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().AppendEmpty().Body().SetStr("an ordinary log line")
	res, err := push(t, e, ld)
	if err != nil || res.Stored.Load() != 1 {
		t.Fatalf("stored %d (%v)", res.Stored.Load(), err)
	}
}

func TestStartWithoutTheExtensionNamesTheSetting(t *testing.T) {
	f := NewFactory()
	e, err := f.CreateLogs(context.Background(), exportertest.NewNopSettings(f.Type()), f.CreateDefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	err = e.Start(context.Background(), componenttest.NewNopHost())
	if err == nil || !strings.Contains(err.Error(), `api: extension "costapi" is not configured`) {
		t.Fatalf("got %v", err)
	}
}
