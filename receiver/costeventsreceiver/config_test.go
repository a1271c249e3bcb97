package costeventsreceiver

import (
	"errors"
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
	custom := createDefaultConfig().(*Config)
	custom.API = component.MustNewIDWithName("costapi", "other")
	custom.MaxEventsPerBatch, custom.MaxOutcomesPerBatch, custom.MaxMetadataBytes, custom.DecodeNice = 10, 20, 4096, 5
	for _, tc := range []struct {
		id   string
		want *Config
	}{
		{"costevents", createDefaultConfig().(*Config)},
		{"costevents/custom", custom},
	} {
		t.Run(tc.id, func(t *testing.T) {
			got, err := loadConfig(t, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			if err := confmap.Validate(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestConfigRefusesUnknownKeys(t *testing.T) {
	if _, err := loadConfig(t, "costevents/typo"); err == nil || !strings.Contains(err.Error(), "max_event_per_batch") {
		t.Fatalf("want an error naming the unknown key, got %v", err)
	}
}

// Validate names every bad field, in the order of the fields, the same on
// every call (it once ranged over a map).
func TestValidateReportsErrorsInAStableOrder(t *testing.T) {
	cfg, err := loadConfig(t, "costevents/bad")
	if err != nil {
		t.Fatal(err)
	}
	cfg.API = component.ID{}
	first := cfg.Validate()
	if first == nil {
		t.Fatal("invalid config accepted")
	}
	msg := first.Error()
	last := -1
	for _, want := range []string{"api: must name the costapi extension", "max_events_per_batch: must be ≥ 1, got 0",
		"max_outcomes_per_batch: must be ≥ 1, got -1", "max_metadata_bytes: must be ≥ 1, got 0",
		"decode_nice: must be between 0 and 19, got 20"} {
		i := strings.Index(msg, want)
		if i <= last {
			t.Fatalf("%q missing or out of order in:\n%s", want, msg)
		}
		last = i
	}
	for range 20 {
		if got := cfg.Validate(); got.Error() != msg {
			t.Fatalf("Validate changed its answer:\n%s\nthen\n%s", msg, got)
		}
	}
	if n := len(first.(interface{ Unwrap() []error }).Unwrap()); n != 5 {
		t.Fatalf("%d errors, want 5: %v", n, errors.Join(first))
	}
}
