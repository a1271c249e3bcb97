package costeventsreceiver

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/component"
)

// Config configures the ingest endpoints.
type Config struct {
	// API is the costapi extension whose server the endpoints are mounted on.
	API component.ID `mapstructure:"api"`
	// MaxEventsPerBatch bounds the events of one batch request.
	MaxEventsPerBatch int `mapstructure:"max_events_per_batch"`
	// MaxOutcomesPerBatch bounds the outcomes of one batch request.
	MaxOutcomesPerBatch int `mapstructure:"max_outcomes_per_batch"`
	// MaxMetadataBytes bounds one event's metadata object, compacted.
	MaxMetadataBytes int `mapstructure:"max_metadata_bytes"`
	// DecodeNice is the nice value (0–19; 0 leaves it) of the threads
	// that decode, price and judge a request's calls (Linux): reads and
	// budget polls, and the database processes serving them, then get a
	// core first while calls pour in.
	DecodeNice int `mapstructure:"decode_nice"`
}

// DefaultDecodeNice leaves decoding at the process's priority: at 10, the
// 10 M-call sustained benchmark showed no gain in budget-state's p99 (20.8
// ms against 22.4) beside a lower acknowledged rate, so lowering it is the
// operator's choice (docs/analytics.md, "Priorities").
const DefaultDecodeNice = 0

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	if c.API.Type().String() == "" {
		errs = append(errs, errors.New("api: must name the costapi extension"))
	}
	// A slice, not a map: the errors come in the order of the fields, the
	// same on every run.
	for _, f := range []struct {
		name string
		v    int
	}{{"max_events_per_batch", c.MaxEventsPerBatch}, {"max_outcomes_per_batch", c.MaxOutcomesPerBatch},
		{"max_metadata_bytes", c.MaxMetadataBytes}} {
		if f.v < 1 {
			errs = append(errs, fmt.Errorf("%s: must be ≥ 1, got %d", f.name, f.v))
		}
	}
	if c.DecodeNice < 0 || c.DecodeNice > 19 {
		errs = append(errs, fmt.Errorf("decode_nice: must be between 0 and 19, got %d", c.DecodeNice))
	}
	return errors.Join(errs...)
}
