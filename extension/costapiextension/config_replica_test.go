package costapiextension

import (
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"
)

// TestReplicaConfig: replica_url and replica_wait decode; a URL of another
// database or protocol is refused at start with the setting named, and
// without its password.
func TestReplicaConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	conf := confmap.NewFromStringMap(map[string]any{"database_url": "postgres://u@primary/llmcost",
		"replica_url": "postgres://u@replica:5432/llmcost", "replica_wait": "50ms"})
	if err := conf.Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.ReplicaURL != "postgres://u@replica:5432/llmcost" || cfg.ReplicaWait != 50*time.Millisecond {
		t.Fatalf("replica: %q %s", cfg.ReplicaURL, cfg.ReplicaWait)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"mysql://u:pw-secret@db:3306/llmcost", "http://replica.internal:8080/", "replica"} {
		cfg.ReplicaURL = configopaque.String(bad)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "replica_url: ") || !strings.Contains(err.Error(), "PostgreSQL") ||
			strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("replica_url %q: %v", bad, err)
		}
	}
	cfg.ReplicaURL, cfg.ReplicaWait = "", time.Minute
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "replica_wait") {
		t.Errorf("replica_wait of a minute: %v", err)
	}
}
