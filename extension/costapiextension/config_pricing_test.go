package costapiextension

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPricingConfigDecodes(t *testing.T) {
	cfg := load(t, "costapi")
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	want := PricingConfig{SyncURL: "https://prices.example.com/litellm.json", SyncInterval: 6 * time.Hour,
		SyncTimeout: 30 * time.Second, SyncMaxBytes: 1 << 20, GenAIPricesURL: DefaultGenAIURL, SyncTolerance: DefaultTolerance}
	if cfg.Pricing != want || cfg.Mode != ModeOrigin {
		t.Fatalf("pricing %+v mode %q", cfg.Pricing, cfg.Mode)
	}
	if got := cfg.adminEmails(); !slices.Equal(got, []string{"admin@example.com", "ops@example.com"}) {
		t.Fatalf("admin emails %v", got)
	}
}

func TestPricingDefaults(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	if cfg.Mode != ModeOrigin || cfg.Pricing.SyncURL != DefaultSyncURL || cfg.Pricing.GenAIPricesURL != DefaultGenAIURL ||
		cfg.Pricing.SyncTolerance != 0.005 || cfg.Pricing.SyncInterval != 24*time.Hour ||
		cfg.Pricing.SyncTimeout != 10*time.Second || cfg.AdminEmails != nil {
		t.Fatalf("defaults: mode %q pricing %+v admins %v", cfg.Mode, cfg.Pricing, cfg.AdminEmails)
	}
}

func TestMirrorNeedsNoDatabaseAndTakesACommaList(t *testing.T) {
	cfg := load(t, "costapi/mirror")
	if err := cfg.Validate(); err != nil {
		t.Fatalf("a mirror without data_dir or database_url must be valid: %v", err)
	}
	if cfg.Pricing.SyncURL != "" {
		t.Fatalf("an empty sync_url must disable the sync, got %q", cfg.Pricing.SyncURL)
	}
	if got := cfg.adminEmails(); !slices.Equal(got, []string{"a@example.com", "b@example.com"}) {
		t.Fatalf("comma-separated admin_emails: %v", got)
	}
	cfg.Mode = ModeOrigin
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "data_dir") {
		t.Fatalf("an origin without a database must still be refused: %v", err)
	}
}

func TestPricingValidateNamesEachBadField(t *testing.T) {
	err := load(t, "costapi/bad").Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, rule := range []string{
		`mode: must be origin or mirror, got "sideways"`,
		`admin_emails[0]: "not-an-address" is not an e-mail address`,
		"pricing.sync_url: must be an http or https URL",
		"pricing.sync_interval: must be ≥ 1s",
		"pricing.sync_timeout: must be > 0",
		"pricing.sync_max_bytes: must be ≥ 1024",
	} {
		if !strings.Contains(err.Error(), rule) {
			t.Errorf("error does not say %q:\n%v", rule, err)
		}
	}
	err = load(t, "costapi/slow_timeout").Validate()
	if err == nil || !strings.Contains(err.Error(), "pricing.sync_timeout: must not exceed pricing.sync_interval") {
		t.Fatalf("a timeout longer than the interval: %v", err)
	}
}
