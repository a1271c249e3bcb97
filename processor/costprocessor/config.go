package costprocessor

import (
	"errors"

	"go.opentelemetry.io/collector/component"
)

// Config configures the pricing processor.
type Config struct {
	// API is the costapi extension that holds the price catalogue.
	API component.ID `mapstructure:"api"`
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.API.Type().String() == "" {
		return errors.New("api: must name the costapi extension")
	}
	return nil
}
