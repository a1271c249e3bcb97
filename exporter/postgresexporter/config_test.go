package postgresexporter

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/llmcost/llmcost/internal/costapitest"
)

// loadConfig decodes testdata/config.yaml's section id over the defaults.
func loadConfig(t *testing.T, id string) (*Config, error) {
	t.Helper()
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	return cfg, costapitest.LoadConfig(t, id, cfg)
}

func TestConfigStruct(t *testing.T) {
	if err := componenttest.CheckConfigStruct(NewFactory().CreateDefaultConfig()); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfig(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want *Config
	}{
		{"postgres", &Config{API: component.MustNewID("costapi"), TimeoutConfig: exporterhelper.TimeoutConfig{Timeout: DefaultTimeout}}},
		{"postgres/custom", &Config{API: component.MustNewIDWithName("costapi", "other"),
			TimeoutConfig: exporterhelper.TimeoutConfig{Timeout: 5 * time.Second}}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			got, err := loadConfig(t, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if err := confmap.Validate(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestValidateNamesTheBadField(t *testing.T) {
	cfg, err := loadConfig(t, "postgres/bad")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err == nil || err.Error() != "timeout: must be ≥ 0, got -1s" {
		t.Fatalf("got %v", err)
	}
	if err := (&Config{}).Validate(); err == nil || !strings.Contains(err.Error(), "api: must name the costapi extension") {
		t.Fatalf("empty api: got %v", err)
	}
}

// A sending queue would acknowledge requests before they are stored.
func TestConfigHasNoSendingQueue(t *testing.T) {
	if _, err := loadConfig(t, "postgres/queue"); err == nil || !strings.Contains(err.Error(), "sending_queue") {
		t.Fatalf("want sending_queue refused, got %v", err)
	}
}
