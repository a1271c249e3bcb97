package costapiextension

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"

	"github.com/llmcost/llmcost/internal/ratelimit"
)

// Config configures the API server, the store and the control plane.
type Config struct {
	// HTTP is the one HTTP server every endpoint is served on; endpoint
	// defaults to 127.0.0.1:8080 and max_request_body_size (after gzip
	// decoding) to 5 MiB. It is a named section rather than squashed:
	// confighttp.ServerConfig has its own Unmarshal, which, promoted through
	// an embedded field, would decode only the server's keys and silently
	// drop every sibling setting.
	HTTP confighttp.ServerConfig `mapstructure:"http"`

	// MaxConnections caps the HTTP connections open at once, so slow or
	// idle clients cannot exhaust file descriptors; further clients wait in
	// the listen backlog. The timeouts that cut slow clients off are the
	// http section's read_header_timeout, read_timeout, write_timeout and
	// keepalive.idle_timeout.
	MaxConnections int `mapstructure:"max_connections"`

	// DatabaseURL is a PostgreSQL URL. Empty: run a private PostgreSQL from
	// the installed binaries under DataDir.
	DatabaseURL configopaque.String `mapstructure:"database_url"`
	// DataDir holds the private PostgreSQL's data when DatabaseURL is empty.
	DataDir string `mapstructure:"data_dir"`
	// MaxConns bounds the connection pool.
	MaxConns int32 `mapstructure:"max_conns"`
	// DatabasePooler says what stands between llmcost and DatabaseURL:
	// empty (or none) for PostgreSQL itself, transaction for PgBouncer (or
	// another pooler) in transaction pooling mode (docs/scale.md).
	DatabasePooler string `mapstructure:"database_pooler"`
	// DatabaseDirectURL, with a pooler, reaches the same database without
	// it, for what needs a session of its own: the API key cache's LISTEN
	// (one connection). Empty: no key cache.
	DatabaseDirectURL configopaque.String `mapstructure:"database_direct_url"`
	// ReplicaURL is a streaming replica (hot standby) of the database the
	// reports read once it has replayed what they must include; empty:
	// every read is the primary's (docs/scale.md, "Read replicas").
	ReplicaURL configopaque.String `mapstructure:"replica_url"`
	// ReplicaWait bounds how long a report waits for the replica to catch
	// up before it reads the primary (0: 100ms).
	ReplicaWait time.Duration `mapstructure:"replica_wait"`

	// RateLimit is the per-key (or per-IP) request quota.
	RateLimit RateLimitConfig `mapstructure:"rate_limit"`
	// Policies are the current terms and privacy versions users accept.
	Policies PoliciesConfig `mapstructure:"policies"`
	// Accounts configures account mail and social sign-in.
	Accounts AccountsConfig `mapstructure:"accounts"`

	// Mode is origin (the whole service) or mirror (health, the public
	// pricing reads and the estimator only, with no database at all).
	Mode string `mapstructure:"mode"`
	// AdminEmails are the deployment admins, who may import prices and
	// re-price events; compared case-insensitively. A comma-separated
	// string is accepted too (LLMCOST_ADMIN_EMAILS).
	AdminEmails []string `mapstructure:"admin_emails"`
	// Pricing configures the price catalogue's network sync.
	Pricing PricingConfig `mapstructure:"pricing"`
	// MaxListLimit bounds the limit parameter of list endpoints
	// (GET /v1/events).
	MaxListLimit int `mapstructure:"max_list_limit"`
	// Jobs configures the background job runner's retries and shutdown.
	Jobs JobsConfig `mapstructure:"jobs"`
	// RollupMergeInterval is how often new events are merged into the
	// analytics rollups and the runs ingest marked are refreshed
	// (docs/analytics.md). Reports are exact either way; a longer interval
	// leaves more events for each report to read raw and more runs for each
	// run report to refresh first.
	RollupMergeInterval time.Duration `mapstructure:"rollup_merge_interval"`
	// Backpressure bounds how far ingest may run ahead of the mergers.
	Backpressure BackpressureConfig `mapstructure:"backpressure"`
	// WorkNice is the nice value (0–19; 0 leaves it) of the database
	// server processes that serve ingest, when the server runs on this
	// machine: reads and the mergers then get a core first while calls
	// pour in (docs/analytics.md, "Back-pressure").
	WorkNice int `mapstructure:"work_nice"`
	// MergeNice is the nice value (0–19; 0 leaves it) of the server
	// processes the mergers use: between the reads' and ingest's, so a
	// report never waits for a core behind a merge step, and the mergers
	// still run before ingest.
	MergeNice int `mapstructure:"merge_nice"`
	// Webhooks configures webhook deliveries (docs/guardrails.md).
	Webhooks WebhooksConfig `mapstructure:"webhooks"`
	// Reconciliation configures the comparison with the providers' bills.
	Reconciliation ReconciliationConfig `mapstructure:"reconciliation"`
	// RawRetentionDays is how long raw calls are kept unless a project
	// says otherwise (1–3650 days; 0 keeps them forever): the job drops
	// whole months once every project's calls in them have expired
	// (docs/scale.md, "Retention").
	RawRetentionDays int `mapstructure:"raw_retention_days"`
	// RollupRetentionDays is the deployment's retention of rollups, run
	// totals and budget counters (1–3650 days; 0 keeps them).
	RollupRetentionDays int `mapstructure:"rollup_retention_days"`
}

// BackpressureConfig bounds the mergers' backlogs (docs/analytics.md,
// "Back-pressure"): past a bound, ingest answers 503 with Retry-After to
// the projects that hold at least their share of that backlog, until the
// merger has drained it. 0 leaves a backlog unbounded.
type BackpressureConfig struct {
	// MaxMergeBacklog bounds the calls stored and not yet merged into the
	// rollups, over the deployment: every report reads them raw.
	MaxMergeBacklog int64 `mapstructure:"max_merge_backlog"`
	// MaxRunBacklog bounds the runs marked and not yet refreshed, over
	// the deployment: a run report refreshes its project's first.
	MaxRunBacklog int64 `mapstructure:"max_run_backlog"`
	// MaxConcurrentWrites bounds the ingest transactions this instance
	// runs at once; more batches wait for one. Ingest at full speed on
	// every core leaves none for the reads and the mergers, so by default
	// it gets half the cores (0: half, at least one).
	MaxConcurrentWrites int32 `mapstructure:"max_concurrent_writes"`
}

// concurrentWrites is MaxConcurrentWrites, or half the cores.
func (b BackpressureConfig) concurrentWrites() int32 {
	if b.MaxConcurrentWrites > 0 {
		return b.MaxConcurrentWrites
	}
	return int32(max(1, runtime.GOMAXPROCS(0)/2))
}

// RateLimitConfig is a fixed-window quota, counted in PostgreSQL (or in
// Redis) so that every instance of a deployment shares it.
type RateLimitConfig struct {
	// Requests allowed per window; at least 1.
	Requests int `mapstructure:"requests"`
	// Window length; at least one second.
	Window time.Duration `mapstructure:"window"`
	// RedisURL, when set (redis[s]://[[user]:password@]host[:port][/db],
	// with go-redis's query options), keeps the counts in Redis instead
	// of PostgreSQL.
	RedisURL configopaque.String `mapstructure:"redis_url"`
}

// PoliciesConfig names the current policy documents.
type PoliciesConfig struct {
	TermsVersion   string `mapstructure:"terms_version"`
	TermsURL       string `mapstructure:"terms_url"`
	PrivacyVersion string `mapstructure:"privacy_version"`
	PrivacyURL     string `mapstructure:"privacy_url"`
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	if strings.TrimSpace(c.HTTP.NetAddr.Endpoint) == "" {
		errs = append(errs, errors.New("http.endpoint: must be host:port"))
	}
	if c.DatabaseURL == "" && strings.TrimSpace(c.DataDir) == "" && c.Mode != ModeMirror {
		errs = append(errs, errors.New("data_dir: required when database_url is empty"))
	}
	if c.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("max_conns: must be ≥ 0, got %d", c.MaxConns))
	}
	if c.RollupMergeInterval < 10*time.Millisecond || c.RollupMergeInterval > time.Hour {
		errs = append(errs, fmt.Errorf("rollup_merge_interval: must be between 10ms and 1h, got %s", c.RollupMergeInterval))
	}
	if c.Backpressure.MaxMergeBacklog < 0 {
		errs = append(errs, fmt.Errorf("backpressure.max_merge_backlog: must be ≥ 0 (0: unbounded), got %d", c.Backpressure.MaxMergeBacklog))
	}
	if c.Backpressure.MaxConcurrentWrites < 0 {
		errs = append(errs, fmt.Errorf("backpressure.max_concurrent_writes: must be ≥ 0 (0: half the cores), got %d", c.Backpressure.MaxConcurrentWrites))
	}
	if c.Backpressure.MaxRunBacklog < 0 {
		errs = append(errs, fmt.Errorf("backpressure.max_run_backlog: must be ≥ 0 (0: unbounded), got %d", c.Backpressure.MaxRunBacklog))
	}
	for _, r := range []struct {
		key  string
		days int
	}{{"raw_retention_days", c.RawRetentionDays}, {"rollup_retention_days", c.RollupRetentionDays}} {
		if r.days != 0 && (r.days < 1 || r.days > 3650) {
			errs = append(errs, fmt.Errorf("%s: must be 0 (keep forever) or from 1 (a day) to 3650 (ten years), got %d", r.key, r.days))
		}
	}
	if c.WorkNice < 0 || c.WorkNice > 19 {
		errs = append(errs, fmt.Errorf("work_nice: must be between 0 and 19, got %d", c.WorkNice))
	}
	if c.MergeNice < 0 || c.MergeNice > 19 {
		errs = append(errs, fmt.Errorf("merge_nice: must be between 0 and 19, got %d", c.MergeNice))
	}
	if c.MaxListLimit < 1 {
		errs = append(errs, fmt.Errorf("max_list_limit: must be ≥ 1, got %d", c.MaxListLimit))
	}
	if c.RateLimit.Requests < 1 {
		errs = append(errs, fmt.Errorf("rate_limit.requests: must be ≥ 1, got %d", c.RateLimit.Requests))
	}
	if c.RateLimit.Window < time.Second {
		errs = append(errs, fmt.Errorf("rate_limit.window: must be ≥ 1s, got %s", c.RateLimit.Window))
	}
	if c.RateLimit.RedisURL != "" {
		if err := ratelimit.ValidateRedisURL(string(c.RateLimit.RedisURL)); err != nil {
			errs = append(errs, fmt.Errorf("rate_limit.redis_url: %w", err))
		}
	}
	if c.Policies.TermsVersion == "" || c.Policies.PrivacyVersion == "" {
		errs = append(errs, errors.New("policies: terms_version and privacy_version are required"))
	}
	if c.HTTP.MaxRequestBodySize <= 0 {
		errs = append(errs, errors.New("http.max_request_body_size: must be > 0"))
	}
	errs = append(errs, c.validateDatabase()...)
	errs = append(errs, c.validateReplica()...)
	errs = append(errs, c.validateSlowClients()...)
	errs = append(errs, c.validatePricing()...)
	errs = append(errs, c.Accounts.validate()...)
	errs = append(errs, c.Jobs.validate()...)
	errs = append(errs, c.Webhooks.validate()...)
	errs = append(errs, c.Reconciliation.validate()...)
	return errors.Join(errs...)
}
