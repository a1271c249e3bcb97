//go:generate go run github.com/llmcost/llmcost/cmd/mdstatus metadata.yaml

// Package costprocessor prices every canonical LLM-call record from the
// catalogue in force, keeps a client-sent cost as sent (recording what the
// catalogue would have charged beside it), marks unknown models unpriced
// rather than free, and stamps the catalogue version on each record.
package costprocessor

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"

	"github.com/llmcost/llmcost/processor/costprocessor/internal/metadata"
)

// NewFactory returns the processor's factory.
func NewFactory() processor.Factory {
	return processor.NewFactory(metadata.Type, createDefaultConfig,
		processor.WithLogs(createLogs, metadata.LogsStability))
}

func createDefaultConfig() component.Config {
	return &Config{API: component.MustNewID("costapi")}
}

func createLogs(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
	p := &costProcessor{cfg: cfg.(*Config), logger: set.Logger}
	return processorhelper.NewLogs(ctx, set, cfg, next, p.processLogs,
		processorhelper.WithStart(p.start),
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}))
}
