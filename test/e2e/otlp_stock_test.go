package e2e

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"

	"github.com/llmcost/llmcost/exporter/postgresexporter"
	"github.com/llmcost/llmcost/extension/costapiextension"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/processor/costprocessor"
	"github.com/llmcost/llmcost/receiver/costeventsreceiver"
)

// The stock otlp receiver (go.opentelemetry.io/collector/receiver/otlpreceiver)
// is not in this module: its v0.164.0 (and v0.163.0) cannot be fetched here,
// as go.opentelemetry.io/collector/internal/statusutil is not served by the
// module proxy. This stand-in takes its place in
// testdata/stock-otlp-config.yaml and hands the pipeline what it would:
// plog.Logs decoded by plogotlp from the JSON or protobuf body, in a context
// that carries no ingest result and no credential.
type otlpStandInConfig struct {
	Protocols map[string]map[string]any `mapstructure:"protocols"`
}

func otlpStandIn(next chan<- consumer.Logs) receiver.Factory {
	return receiver.NewFactory(component.MustNewType("otlp"),
		func() component.Config { return &otlpStandInConfig{} },
		receiver.WithLogs(func(_ context.Context, _ receiver.Settings, _ component.Config, c consumer.Logs) (receiver.Logs, error) {
			next <- c
			return struct {
				component.StartFunc
				component.ShutdownFunc
			}{}, nil
		}, component.StabilityLevelDevelopment))
}

// startStock runs the collector in-process with the stock-receiver config
// and returns the consumer the otlp receiver feeds.
func startStock(t *testing.T) consumer.Logs {
	t.Helper()
	next := make(chan consumer.Logs, 1)
	factories := func() (otelcol.Factories, error) {
		f := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
		var err error
		if f.Extensions, err = otelcol.MakeFactoryMap[extension.Factory](costapiextension.NewFactory()); err != nil {
			return f, err
		}
		if f.Receivers, err = otelcol.MakeFactoryMap(costeventsreceiver.NewFactory(), otlpStandIn(next)); err != nil {
			return f, err
		}
		if f.Processors, err = otelcol.MakeFactoryMap[processor.Factory](costprocessor.NewFactory()); err != nil {
			return f, err
		}
		f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](postgresexporter.NewFactory())
		return f, err
	}
	col, err := otelcol.NewCollector(otelcol.CollectorSettings{
		BuildInfo: component.NewDefaultBuildInfo(), Factories: factories, DisableGracefulShutdown: true,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{ResolverSettings: confmap.ResolverSettings{
			URIs:              []string{"file:" + filepath.Join("testdata", "stock-otlp-config.yaml")},
			ProviderFactories: []confmap.ProviderFactory{envprovider.NewFactory(), fileprovider.NewFactory()},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- col.Run(context.Background()) }()
	t.Cleanup(func() {
		col.Shutdown()
		if err := <-done; err != nil {
			t.Errorf("collector: %v", err)
		}
	})
	deadline := time.After(60 * time.Second)
	for col.GetState() != otelcol.StateRunning {
		select {
		case err := <-done:
			t.Fatalf("the collector stopped while starting: %v", err)
		case <-deadline:
			t.Fatal("the collector did not start within 60s")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return <-next
}

// An ops team's collector with the stock otlp receiver in front of our cost
// processor and postgres exporter stores the same events as our endpoint.
func TestStockOTLPReceiverPipelineStoresTheSameEvents(t *testing.T) {
	// The agents' project must exist before the config naming it is loaded.
	url := pgtest.NewDatabase(t)
	setup := start(t, map[string]string{"LLMCOST_DATABASE_URL": url})
	_, stockProject, stockKey := setup.account(t)
	_, _, ownKey := setup.account(t)
	setup.stop(t)

	addr := freePort(t)
	for k, v := range map[string]string{"LLMCOST_DATABASE_URL": url, "LLMCOST_HTTP_ENDPOINT": addr,
		"LLMCOST_AGENT_PROJECT_ID": stockProject, "LLMCOST_RATE_LIMIT": "100000", "LLMCOST_LOG_LEVEL": "warn"} {
		t.Setenv(k, v)
	}
	next := startStock(t)
	s := &service{URL: "http://" + addr}

	var want []expectedCall
	for _, name := range otlpFixtures {
		body := readOTLPFixture(t, name)
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalJSON(body); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := next.ConsumeLogs(context.Background(), req.Logs()); err != nil {
			t.Fatalf("%s through the stock pipeline: %v", name, err)
		}
		s.postOTLP(t, "/v1/otlp/v1/logs", ownKey, body, jsonType).must(t, 200)
		want = append(want, readExpected(t, name).Events...)
	}
	stock := checkStored(t, s, stockKey, want)
	if own := s.listed(t, ownKey); !reflect.DeepEqual(stock, own) {
		t.Fatalf("the stock pipeline and our endpoint stored different events:\n%v\n%v", stock, own)
	}

	// Protobuf (HTTP or gRPC) decodes to the same logs; a re-sent export
	// stores nothing new.
	for _, name := range otlpFixtures {
		req := plogotlp.NewExportRequest()
		_ = req.UnmarshalJSON(readOTLPFixture(t, name))
		wire, err := req.MarshalProto()
		if err != nil {
			t.Fatal(err)
		}
		fromProto := plogotlp.NewExportRequest()
		if err := fromProto.UnmarshalProto(wire); err != nil {
			t.Fatal(err)
		}
		if err := next.ConsumeLogs(context.Background(), fromProto.Logs()); err != nil {
			t.Fatalf("%s as protobuf: %v", name, err)
		}
	}
	if again := s.listed(t, stockKey); !reflect.DeepEqual(again, stock) {
		t.Fatalf("re-sending as protobuf changed the stored events")
	}
}
