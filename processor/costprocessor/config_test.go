package costprocessor

import (
	"reflect"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"

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
		{"cost", &Config{API: component.MustNewID("costapi")}},
		{"cost/project", &Config{API: component.MustNewIDWithName("costapi", "other"),
			ProjectID: "123e4567-e89b-12d3-a456-426614174000"}},
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
	for _, id := range []string{"cost/not_canonical", "cost/not_a_uuid"} {
		cfg, err := loadConfig(t, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), "project_id: must be a UUID") {
			t.Errorf("%s: got %v", id, err)
		}
	}
	if err := (&Config{}).Validate(); err == nil || !strings.Contains(err.Error(), "api: must name the costapi extension") {
		t.Errorf("empty api: got %v", err)
	}
}

func TestConfigRefusesUnknownKeys(t *testing.T) {
	if _, err := loadConfig(t, "cost/typo"); err == nil || !strings.Contains(err.Error(), "projectid") {
		t.Fatalf("want an error naming the unknown key, got %v", err)
	}
}
