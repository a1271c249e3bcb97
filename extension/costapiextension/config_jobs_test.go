package costapiextension

import (
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/confmap"
)

func TestJobsConfigDecodesAndDefaults(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	if d := cfg.Jobs; d.RetryMin != 10*time.Second || d.RetryMax != time.Hour || d.MailAttempts != 40 || d.StopTimeout != 10*time.Second {
		t.Fatalf("defaults: %+v", d)
	}
	cm := confmap.NewFromStringMap(map[string]any{"jobs": map[string]any{
		"retry_min": "200ms", "retry_max": "1s", "mail_attempts": 3, "stop_timeout": "2s"}})
	if err := cm.Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	if j := cfg.Jobs; j.RetryMin != 200*time.Millisecond || j.RetryMax != time.Second || j.MailAttempts != 3 || j.StopTimeout != 2*time.Second {
		t.Fatalf("decoded: %+v", j)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestJobsConfigValidateNamesEachBadField(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.Jobs = JobsConfig{RetryMin: 0, RetryMax: -time.Second, MailAttempts: 0, StopTimeout: 0}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("invalid jobs section accepted")
	}
	for _, field := range []string{"jobs.retry_min", "jobs.retry_max", "jobs.mail_attempts", "jobs.stop_timeout"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
}
