package costapiextension

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// Modes of the service.
const (
	ModeOrigin = "origin"
	ModeMirror = "mirror"
)

// PricingConfig configures the price catalogue's network sync.
type PricingConfig struct {
	// SyncURL is a LiteLLM model_prices_and_context_window.json file,
	// fetched at start (in the background) and every SyncInterval. Empty
	// disables the sync: the built-in prices, or the last import, stay.
	SyncURL string `mapstructure:"sync_url"`
	// GenAIPricesURL is Pydantic's genai-prices prices/data.json, the
	// second source: fetched with SyncURL and compared with it; a model on
	// which they disagree beyond SyncTolerance keeps its current price.
	// Empty: LiteLLM's file alone.
	GenAIPricesURL string `mapstructure:"genai_prices_url"`
	// SyncTolerance is the relative difference two sources may show and
	// still agree (0.005 = 0.5% of the larger rate); 0 to 0.5.
	SyncTolerance float64 `mapstructure:"sync_tolerance"`
	// SyncInterval is the time between syncs; at least one second.
	SyncInterval time.Duration `mapstructure:"sync_interval"`
	// SyncTimeout bounds one fetch, body included; more than zero and at
	// most SyncInterval.
	SyncTimeout time.Duration `mapstructure:"sync_timeout"`
	// SyncMaxBytes caps the fetched file; at least 1 KiB.
	SyncMaxBytes int64 `mapstructure:"sync_max_bytes"`
}

// Defaults of the pricing configuration.
const (
	DefaultSyncURL      = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"
	DefaultSyncInterval = 24 * time.Hour
	DefaultSyncTimeout  = 10 * time.Second
	DefaultSyncMaxBytes = 64 << 20
	DefaultGenAIURL     = "https://raw.githubusercontent.com/pydantic/genai-prices/main/prices/data.json"
	DefaultTolerance    = 0.005
)

func defaultPricingConfig() PricingConfig {
	return PricingConfig{SyncURL: DefaultSyncURL, GenAIPricesURL: DefaultGenAIURL, SyncTolerance: DefaultTolerance,
		SyncInterval: DefaultSyncInterval,
		SyncTimeout:  DefaultSyncTimeout, SyncMaxBytes: DefaultSyncMaxBytes}
}

// validatePricing checks mode, admin_emails and the pricing section.
func (c *Config) validatePricing() []error {
	var errs []error
	if c.Mode != ModeOrigin && c.Mode != ModeMirror {
		errs = append(errs, fmt.Errorf("mode: must be %s or %s, got %q", ModeOrigin, ModeMirror, c.Mode))
	}
	for i, a := range c.AdminEmails {
		a = strings.TrimSpace(a)
		if addr, err := mail.ParseAddress(a); a != "" && (err != nil || addr.Address != a) {
			errs = append(errs, fmt.Errorf("admin_emails[%d]: %q is not an e-mail address", i, a))
		}
	}
	p := c.Pricing
	for _, f := range []struct{ key, v string }{{"sync_url", p.SyncURL}, {"genai_prices_url", p.GenAIPricesURL}} {
		if f.v == "" {
			continue
		}
		u, err := url.Parse(f.v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("pricing.%s: must be an http or https URL, or empty to disable it, got %q", f.key, f.v))
		}
	}
	if p.SyncTolerance < 0 || p.SyncTolerance > 0.5 {
		errs = append(errs, fmt.Errorf("pricing.sync_tolerance: must be from 0 to 0.5, got %v", p.SyncTolerance))
	}
	if p.SyncInterval < time.Second {
		errs = append(errs, fmt.Errorf("pricing.sync_interval: must be ≥ 1s, got %s", p.SyncInterval))
	}
	switch {
	case p.SyncTimeout <= 0:
		errs = append(errs, fmt.Errorf("pricing.sync_timeout: must be > 0, got %s", p.SyncTimeout))
	case p.SyncTimeout > p.SyncInterval && p.SyncInterval >= time.Second:
		errs = append(errs, fmt.Errorf("pricing.sync_timeout: must not exceed pricing.sync_interval (%s), got %s", p.SyncInterval, p.SyncTimeout))
	}
	if p.SyncMaxBytes < 1024 {
		errs = append(errs, fmt.Errorf("pricing.sync_max_bytes: must be ≥ 1024, got %d", p.SyncMaxBytes))
	}
	return errs
}

// adminEmails is AdminEmails trimmed, lower-cased and without blanks (a
// trailing comma in LLMCOST_ADMIN_EMAILS is harmless).
func (c *Config) adminEmails() []string {
	var out []string
	for _, a := range c.AdminEmails {
		if a = strings.ToLower(strings.TrimSpace(a)); a != "" {
			out = append(out, a)
		}
	}
	return out
}
