package costprocessor

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/llmcost/llmcost/internal/costapitest"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/semconv"
)

func createLogsProcessor(t *testing.T, cfg *Config, next *consumertest.LogsSink) processor.Logs {
	t.Helper()
	f := NewFactory()
	p, err := f.CreateLogs(context.Background(), processortest.NewNopSettings(f.Type()), cfg, next)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Created by its factory and started with a host holding the real costapi
// extension, the processor prices from the extension's catalogue.
func TestLifecycle(t *testing.T) {
	host, ext := costapitest.Start(t)
	sink := &consumertest.LogsSink{}
	p := createLogsProcessor(t, NewFactory().CreateDefaultConfig().(*Config), sink)
	if err := p.Start(context.Background(), host); err != nil {
		t.Fatal(err)
	}
	ev := call("claude-sonnet-4-5", 1000, 0, 0, 500)
	ev.ProjectID = costapitest.NewProject(t, ext.DB())
	ld := plog.NewLogs()
	semconv.PutEvent(ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty(), &ev)
	// The costevents receiver marks its requests with a result holder.
	if err := p.ConsumeLogs(ingest.NewContext(context.Background(), &ingest.Result{}), ld); err != nil {
		t.Fatal(err)
	}
	if len(sink.AllLogs()) != 1 {
		t.Fatalf("%d requests passed on, want 1", len(sink.AllLogs()))
	}
	got, err := semconv.GetEvent(sink.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0))
	if err != nil || !got.Priced || got.CostNano != 10_500_000 || got.PriceVersion != ext.Catalogue().Version() {
		t.Fatalf("priced %+v (%v)", got, err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// project_id is checked against the store at start, so a typo shows at once.
func TestStartRefusesAnUnknownProject(t *testing.T) {
	host, ext := costapitest.Start(t)
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	cfg.ProjectID = "123e4567-e89b-12d3-a456-426614174000"
	err := createLogsProcessor(t, cfg, &consumertest.LogsSink{}).Start(context.Background(), host)
	if err == nil || !strings.Contains(err.Error(), "project_id: no project 123e4567-e89b-12d3-a456-426614174000 exists") {
		t.Fatalf("got %v", err)
	}
	cfg.ProjectID = costapitest.NewProject(t, ext.DB())
	p := createLogsProcessor(t, cfg, &consumertest.LogsSink{})
	if err := p.Start(context.Background(), host); err != nil {
		t.Fatalf("an existing project refused: %v", err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestStartWithoutTheExtensionNamesTheSetting(t *testing.T) {
	p := createLogsProcessor(t, NewFactory().CreateDefaultConfig().(*Config), &consumertest.LogsSink{})
	err := p.Start(context.Background(), componenttest.NewNopHost())
	if err == nil || !strings.Contains(err.Error(), `api: extension "costapi" is not configured`) {
		t.Fatalf("got %v", err)
	}
}
