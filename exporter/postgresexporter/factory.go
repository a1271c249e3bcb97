//go:generate go run github.com/llmcost/llmcost/cmd/mdstatus metadata.yaml

// Package postgresexporter writes canonical LLM-call and outcome records to
// PostgreSQL in one round trip per request, deduplicated by (project,
// event_id) in the database, and fills the request's result holder.
package postgresexporter

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/llmcost/llmcost/exporter/postgresexporter/internal/metadata"
)

// DefaultTimeout bounds one write, including waiting for a pooled connection.
const DefaultTimeout = 30 * time.Second

// NewFactory returns the exporter's factory.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(metadata.Type, createDefaultConfig,
		exporter.WithLogs(createLogs, metadata.LogsStability))
}

func createDefaultConfig() component.Config {
	return &Config{API: component.MustNewID("costapi"), TimeoutConfig: exporterhelper.TimeoutConfig{Timeout: DefaultTimeout}}
}

func createLogs(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Logs, error) {
	c := cfg.(*Config)
	e := &pgExporter{cfg: c}
	return exporterhelper.NewLogs(ctx, set, cfg, e.push,
		exporterhelper.WithStart(e.start),
		exporterhelper.WithTimeout(c.TimeoutConfig),
		exporterhelper.WithCapabilities(consumer.Capabilities{MutatesData: false}))
}
