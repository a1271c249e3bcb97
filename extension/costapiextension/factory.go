//go:generate go run github.com/llmcost/llmcost/cmd/mdstatus metadata.yaml

// Package costapiextension hosts llmcost's one HTTP server and control
// plane: the PostgreSQL store (its own private server when no URL is set),
// migrations, the price catalogue, and the REST API. Pipeline components find
// it by its component ID.
package costapiextension

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/extension"

	"github.com/llmcost/llmcost/apiserver"
	"github.com/llmcost/llmcost/extension/costapiextension/internal/metadata"
	"github.com/llmcost/llmcost/internal/jobs"
)

// Defaults of the configuration.
const (
	DefaultEndpoint    = "127.0.0.1:8080"
	DefaultDataDir     = "./.llmcost"
	DefaultMaxBodySize = 5 << 20
	DefaultMaxConns    = 16
	DefaultRateLimit   = 100
	DefaultRateWindow  = time.Minute
	DefaultPolicy      = "2026-01-01"
	// DefaultReadHeaderTimeout cuts off a client that sends its request
	// line and headers slowly (a byte a second).
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request, body included: a
	// 5 MiB batch needs about 1.4 Mbit/s to arrive in time.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds a request from the end of its headers to
	// the end of its answer (confighttp's own default).
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection idle this long.
	DefaultIdleTimeout = time.Minute
	// DefaultMaxConnections caps open connections; more wait in the
	// listen backlog until one closes.
	DefaultMaxConnections = 1024
	// DefaultRollupMergeInterval keeps the reports' raw tail to about a
	// second of ingest.
	DefaultRollupMergeInterval = time.Second
	// DefaultMaxMergeBacklog keeps the calls every report reads raw to a
	// few tens of milliseconds of reading (docs/analytics.md,
	// "Back-pressure").
	DefaultMaxMergeBacklog = 50_000
	// DefaultMaxRunBacklog keeps the runs a run report refreshes first to
	// a few hundred milliseconds of work at most.
	DefaultMaxRunBacklog = 5_000
	// DefaultWorkNice is the lowest CPU priority: ingest and the mergers
	// still get every core the reads leave idle.
	DefaultWorkNice = 19
	// DefaultMergeNice puts the mergers below the reads and above ingest:
	// the kernel gives a nice-10 process about seven times the CPU of a
	// nice-19 one, and a nice-0 one about ten times its own.
	DefaultMergeNice = 10
)

// NewFactory returns the extension's factory.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = DefaultEndpoint
	srv.MaxRequestBodySize = DefaultMaxBodySize
	srv.ReadHeaderTimeout = DefaultReadHeaderTimeout
	srv.ReadTimeout = DefaultReadTimeout
	srv.WriteTimeout = DefaultWriteTimeout
	// gzip or nothing: every other Content-Encoding (zstd, snappy, lz4,
	// deflate, which confighttp would decode) is a 415, as documented.
	srv.CompressionAlgorithms = []string{"", "gzip"}
	return &Config{
		HTTP:           srv,
		MaxConnections: DefaultMaxConnections,
		DataDir:        DefaultDataDir,
		MaxConns:       DefaultMaxConns,
		RateLimit:      RateLimitConfig{Requests: DefaultRateLimit, Window: DefaultRateWindow},
		Policies: PoliciesConfig{TermsVersion: DefaultPolicy, PrivacyVersion: DefaultPolicy,
			TermsURL: "/legal/terms", PrivacyURL: "/legal/privacy"},
		Mode:         ModeOrigin,
		Pricing:      defaultPricingConfig(),
		MaxListLimit: apiserver.DefaultMaxListLimit,

		RollupMergeInterval: DefaultRollupMergeInterval,
		Backpressure:        BackpressureConfig{MaxMergeBacklog: DefaultMaxMergeBacklog, MaxRunBacklog: DefaultMaxRunBacklog},
		WorkNice:            DefaultWorkNice,
		MergeNice:           DefaultMergeNice,

		Accounts: defaultAccountsConfig(),
		Jobs:     defaultJobsConfig(),
		Webhooks: WebhooksConfig{Attempts: jobs.DefaultWebhookAttempts},

		Reconciliation: defaultReconciliationConfig(),
	}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	return newExtension(cfg.(*Config), set), nil
}
