package costapiextension

import (
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/confmap"
)

func TestReconciliationConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	conf := confmap.NewFromStringMap(map[string]any{"reconciliation": map[string]any{
		"secret_key": strings.Repeat("s", 32), "anthropic_api_url": "https://egress.internal:8443/anthropic",
		"openai_api_url": "http://127.0.0.1:9000", "provider_ca_file": "/etc/llmcost/ca.pem", "sync_interval": "15m"}})
	if err := conf.Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	r := cfg.Reconciliation
	if r.AnthropicAPIURL != "https://egress.internal:8443/anthropic" || r.OpenAIAPIURL != "http://127.0.0.1:9000" ||
		r.ProviderCAFile != "/etc/llmcost/ca.pem" || r.SyncInterval != 15*time.Minute || len(r.SecretKey) != 32 {
		t.Fatalf("reconciliation: %+v", r)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if box, err := r.keys(); err != nil || box == nil {
		t.Fatalf("keys: %v", err)
	}
	bad := createDefaultConfig().(*Config)
	bad.Reconciliation = ReconciliationConfig{SecretKey: "short", AnthropicAPIURL: "ftp://x", OpenAIAPIURL: "https://u:p@x",
		SyncInterval: time.Second}
	err := bad.Validate()
	for _, field := range []string{"secret_key: must be at least 32", "anthropic_api_url", "openai_api_url", "sync_interval"} {
		if err == nil || !strings.Contains(err.Error(), "reconciliation."+field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
	if box, err := createDefaultConfig().(*Config).Reconciliation.keys(); box != nil || err != nil {
		t.Fatalf("no secret must mean no box: %v %v", box, err)
	}
}
