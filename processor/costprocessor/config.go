package costprocessor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"go.opentelemetry.io/collector/component"
)

// Config configures the pricing processor.
type Config struct {
	// API is the costapi extension that holds the price catalogue.
	API component.ID `mapstructure:"api"`
	// ProjectID is the project whose events these are, for raw coding-agent
	// logs that reach the processor from a stock receiver (e.g. otlp) and
	// carry no credential. Required when such logs arrive; records from the
	// costevents receiver already carry the project of their API key and
	// ignore it. A UUID in canonical form.
	ProjectID string `mapstructure:"project_id"`
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	if c.API.Type().String() == "" {
		errs = append(errs, errors.New("api: must name the costapi extension"))
	}
	if c.ProjectID != "" {
		if u, err := uuid.Parse(c.ProjectID); err != nil || u.String() != strings.ToLower(c.ProjectID) {
			errs = append(errs, fmt.Errorf("project_id: must be a UUID such as 123e4567-e89b-12d3-a456-426614174000, got %q", c.ProjectID))
		}
	}
	return errors.Join(errs...)
}
