package postgresexporter

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
)

// Config configures the exporter. It deliberately has no sending_queue or
// retry settings: the receiver answers with counts only storage knows, so
// the write must happen inside the request (the pipeline is synchronous on
// purpose, docs/configuration.md) and the client, not the collector, retries
// a 503.
type Config struct {
	// API is the costapi extension that owns the database pool.
	API component.ID `mapstructure:"api"`
	// TimeoutConfig bounds one write; a write that times out answers 503.
	exporterhelper.TimeoutConfig `mapstructure:",squash"`
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	if c.API.Type().String() == "" {
		errs = append(errs, errors.New("api: must name the costapi extension"))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout: must be ≥ 0, got %s", c.Timeout))
	}
	return errors.Join(errs...)
}
