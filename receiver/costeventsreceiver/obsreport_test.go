package costeventsreceiver

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/receiver/costeventsreceiver/internal/metadata"
)

const (
	acceptedMetric = "otelcol_receiver_accepted_log_records"
	refusedMetric  = "otelcol_receiver_refused_log_records"
)

// Each request's pipeline call is counted by the collector's receiver
// telemetry: the records the pipeline took as accepted, those of a failed
// call as refused, attributed to the receiver and its transport. Records
// the request's own validation rejected are not the pipeline's.
func TestObsReportCountsEachRequest(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := receivertest.NewNopSettings(metadata.Type)
	set.ID = component.NewID(metadata.Type) // as a configuration names it; the nop settings' ID has a random name
	set.TelemetrySettings = tel.NewTelemetrySettings()

	store := consumerFunc(func(ctx context.Context, ld plog.Logs) error {
		ingest.FromContext(ctx).Fill(int64(ld.LogRecordCount()), 0, 0)
		return nil
	})
	fail := consumerFunc(func(context.Context, plog.Logs) error {
		return consumererror.NewRetryableError(errors.New("connection refused"))
	})
	stored, failing := newTestReceiverWith(set, store), newTestReceiverWith(set, fail)

	// oneCall holds two calls, one of them with a negative token count.
	if w := postLogs(t, stored, oneCall); w.Code != http.StatusOK {
		t.Fatalf("OTLP logs: %d %s", w.Code, w.Body)
	}
	assertCounts(t, tel, 1, 0)

	if _, err := stored.consume(context.Background(), formatBatch, logsOf(3), func() {}); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, tel, 4, 0)

	if w := postLogs(t, failing, oneCall); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("OTLP logs into a failing pipeline: %d %s", w.Code, w.Body)
	}
	if _, err := failing.consume(context.Background(), formatBatch, logsOf(2), func() {}); err == nil {
		t.Fatal("a failing pipeline's call succeeded")
	}
	assertCounts(t, tel, 4, 3)

	spans := tel.SpanRecorder.Ended()
	if len(spans) != 4 || spans[0].Name() != "receiver/costevents/LogsReceived" {
		t.Fatalf("spans: %d, the first %q", len(spans), spans[0].Name())
	}
}

// assertCounts checks the receiver's accepted and refused totals, and that
// every data point names the receiver and its transport.
func assertCounts(t *testing.T, tel *componenttest.Telemetry, accepted, refused int64) {
	t.Helper()
	for name, want := range map[string]int64{acceptedMetric: accepted, refusedMetric: refused} {
		m, err := tel.GetMetric(name)
		if err != nil {
			t.Fatal(err)
		}
		sum, ok := m.Data.(metricdata.Sum[int64])
		if !ok {
			t.Fatalf("%s is a %T, want an int64 sum", name, m.Data)
		}
		var got int64
		for _, dp := range sum.DataPoints {
			got += dp.Value
			if v, _ := dp.Attributes.Value(attribute.Key("receiver")); v.AsString() != metadata.Type.String() {
				t.Errorf("%s: receiver attribute %q", name, v.AsString())
			}
			if v, _ := dp.Attributes.Value(attribute.Key("transport")); v.AsString() != transport {
				t.Errorf("%s: transport attribute %q", name, v.AsString())
			}
		}
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}

// logsOf is n empty log records of one resource.
func logsOf(n int) plog.Logs {
	ld := plog.NewLogs()
	records := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for range n {
		records.AppendEmpty()
	}
	return ld
}
