package costapiextension

import (
	"fmt"
	"net/url"
	"time"

	"go.opentelemetry.io/collector/config/configopaque"

	"github.com/llmcost/llmcost/internal/jobs"
	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/secretbox"
)

// ReconciliationConfig configures the comparison with the providers' own
// usage and cost reports (docs/reconciliation.md).
type ReconciliationConfig struct {
	// SecretKey encrypts the provider admin keys at rest
	// (LLMCOST_SECRET_KEY, at least 32 characters). Without it no key can
	// be stored: connecting a provider answers 501.
	SecretKey configopaque.String `mapstructure:"secret_key"`
	// AnthropicAPIURL and OpenAIAPIURL are the providers' origins
	// (LLMCOST_ANTHROPIC_API_URL, LLMCOST_OPENAI_API_URL): the public
	// ones by default, an egress proxy or gateway otherwise.
	AnthropicAPIURL string `mapstructure:"anthropic_api_url"`
	OpenAIAPIURL    string `mapstructure:"openai_api_url"`
	// ProviderCAFile is a PEM file of extra CAs trusted for those origins
	// (LLMCOST_PROVIDER_CA_FILE), for proxies that re-sign TLS.
	ProviderCAFile string `mapstructure:"provider_ca_file"`
	// SyncInterval is how often every connection is synced (one instance
	// runs the syncs).
	SyncInterval time.Duration `mapstructure:"sync_interval"`
}

// DefaultReconcileSyncInterval syncs hourly: the providers' reports are
// daily, and a day's figures settle over the following hours.
const DefaultReconcileSyncInterval = time.Hour

func defaultReconciliationConfig() ReconciliationConfig {
	return ReconciliationConfig{AnthropicAPIURL: providers.AnthropicBaseURL, OpenAIAPIURL: providers.OpenAIBaseURL,
		SyncInterval: DefaultReconcileSyncInterval}
}

func (c ReconciliationConfig) validate() []error {
	var errs []error
	if s := string(c.SecretKey); s != "" && len(s) < secretbox.MinSecretLen {
		errs = append(errs, fmt.Errorf("reconciliation.secret_key: must be at least %d characters, got %d",
			secretbox.MinSecretLen, len(s)))
	}
	for name, v := range map[string]string{"anthropic_api_url": c.AnthropicAPIURL, "openai_api_url": c.OpenAIAPIURL} {
		u, err := url.Parse(v)
		if v != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil) {
			errs = append(errs, fmt.Errorf("reconciliation.%s: must be an http(s) origin without credentials, got %q", name, v))
		}
	}
	if c.SyncInterval < time.Minute {
		errs = append(errs, fmt.Errorf("reconciliation.sync_interval: must be ≥ 1m, got %s", c.SyncInterval))
	}
	return errs
}

// keys is the box that seals the admin keys; nil without a secret.
func (c ReconciliationConfig) keys() (*secretbox.Box, error) {
	if c.SecretKey == "" {
		return nil, nil
	}
	return secretbox.New(string(c.SecretKey))
}

// providerSync is the reconciliation sync over the store, with clients of
// the configured origins.
func (e *Extension) providerSync() (*jobs.ProviderSync, error) {
	r := e.cfg.Reconciliation
	client, err := providers.NewHTTPClient(r.ProviderCAFile)
	if err != nil {
		return nil, fmt.Errorf("reconciliation.provider_ca_file: %w", err)
	}
	ua := "llmcost/" + e.set.BuildInfo.Version + " (reconciliation)"
	return &jobs.ProviderSync{DB: e.db, Keys: e.keys, Interval: r.SyncInterval, Log: e.set.Logger, Now: time.Now,
		Catalogue: e.Catalogue,
		Clients: map[string]providers.Client{
			providers.Anthropic: providers.NewAnthropic(providers.Options{BaseURL: r.AnthropicAPIURL, HTTP: client, UserAgent: ua}),
			providers.OpenAI:    providers.NewOpenAI(providers.Options{BaseURL: r.OpenAIAPIURL, HTTP: client, UserAgent: ua}),
		}}, nil
}
