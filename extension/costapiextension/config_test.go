package costapiextension

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
)

func load(t *testing.T, id string) *Config {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := cm.Sub(id)
	if err != nil {
		t.Fatal(err)
	}
	cfg := createDefaultConfig().(*Config)
	if err := sub.Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Every setting must survive decoding: a squashed confighttp.ServerConfig
// once swallowed the siblings silently.
func TestConfigDecodesEverySetting(t *testing.T) {
	cfg := load(t, component.MustNewID("costapi").String())
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	switch {
	case cfg.HTTP.NetAddr.Endpoint != "127.0.0.1:9999", cfg.HTTP.MaxRequestBodySize != 1<<20:
		t.Fatalf("http: %+v", cfg.HTTP)
	case string(cfg.DatabaseURL) != "postgres://u@localhost/db", cfg.DataDir != "/var/lib/llmcost", cfg.MaxConns != 4:
		t.Fatalf("store: %+v", cfg)
	case cfg.RateLimit.Requests != 7 || cfg.RateLimit.Window != 2*time.Minute:
		t.Fatalf("rate limit: %+v", cfg.RateLimit)
	case cfg.Policies.TermsVersion != "2027-01-01" || cfg.Policies.PrivacyVersion != "2027-02-01":
		t.Fatalf("policies: %+v", cfg.Policies)
	case cfg.RollupMergeInterval != 250*time.Millisecond:
		t.Fatalf("rollup_merge_interval: %s", cfg.RollupMergeInterval)
	case cfg.Backpressure != BackpressureConfig{MaxMergeBacklog: 5000, MaxRunBacklog: 0, MaxConcurrentWrites: 3}:
		t.Fatalf("backpressure: %+v", cfg.Backpressure)
	case cfg.RawRetentionDays != 90 || cfg.RollupRetentionDays != 3650:
		t.Fatalf("retention: %d %d", cfg.RawRetentionDays, cfg.RollupRetentionDays)
	}
}

func TestConfigValidateNamesEachBadField(t *testing.T) {
	err := load(t, "costapi/bad").Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, field := range []string{"http.endpoint", "data_dir", "rate_limit.requests", "rate_limit.window",
		"rollup_merge_interval", "backpressure.max_merge_backlog", "backpressure.max_run_backlog", "backpressure.max_concurrent_writes",
		"raw_retention_days", "rollup_retention_days"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
}

func TestDefaultConfigIsValid(t *testing.T) {
	if err := createDefaultConfig().(*Config).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigRefusesUnknownKeysUnderHTTP(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := cm.Sub("costapi/http_typo")
	if err != nil {
		t.Fatal(err)
	}
	err = sub.Unmarshal(createDefaultConfig())
	if err == nil || !strings.Contains(err.Error(), "http") || !strings.Contains(err.Error(), "endpont") {
		t.Fatalf("a typo under http must be an error naming it, got %v", err)
	}
}

// The strict probe must not refuse what confighttp itself accepts.
func TestConfigAcceptsEveryHTTPKey(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	conf := confmap.NewFromStringMap(map[string]any{"http": map[string]any{
		"endpoint": "127.0.0.1:1234", "max_request_body_size": 10, "read_header_timeout": "5s",
		"idle_timeout": "2m", "cors": map[string]any{"allowed_origins": []any{"https://a.example"}},
		"response_headers": map[string]any{"X-A": "b"},
	}})
	if err := conf.Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.HTTP.NetAddr.Endpoint != "127.0.0.1:1234" || cfg.HTTP.MaxRequestBodySize != 10 || cfg.HTTP.ReadHeaderTimeout != 5*time.Second {
		t.Fatalf("http: %+v", cfg.HTTP)
	}
}
