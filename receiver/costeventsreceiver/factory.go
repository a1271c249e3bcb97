//go:generate go run github.com/llmcost/llmcost/cmd/mdstatus metadata.yaml

// Package costeventsreceiver takes LLM-call events over HTTP — JSON batches
// and coding-agent OTLP logs — on the costapi extension's server, turns each
// call into one canonical log record, and answers with exact counts once the
// synchronous pipeline has stored them.
package costeventsreceiver

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/receiver/costeventsreceiver/internal/metadata"
)

// NewFactory returns the receiver's factory.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(metadata.Type, createDefaultConfig,
		receiver.WithLogs(createLogs, metadata.LogsStability))
}

func createDefaultConfig() component.Config {
	return &Config{
		API:                 component.MustNewID("costapi"),
		MaxEventsPerBatch:   ingest.DefaultLimits.MaxEvents,
		MaxOutcomesPerBatch: ingest.DefaultLimits.MaxOutcomes,
		MaxMetadataBytes:    ingest.DefaultLimits.MaxMetadataBytes,
		DecodeNice:          DefaultDecodeNice,
	}
}

func createLogs(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Logs) (receiver.Logs, error) {
	r, err := newReceiver(cfg.(*Config), set, next)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return r, nil
}
