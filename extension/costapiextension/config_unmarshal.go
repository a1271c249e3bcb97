package costapiextension

import (
	"fmt"

	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/confmap"
)

// httpSection has the fields of confighttp.ServerConfig without its
// Unmarshal method, which decodes with WithIgnoreUnused (it is usually
// squashed into a parent whose sibling keys it must tolerate) and so would
// accept a typo such as "endpont" in silence.
type httpSection confighttp.ServerConfig

var _ confmap.Unmarshaler = (*Config)(nil)

// Unmarshal decodes the configuration, refusing unknown keys under http as
// the collector refuses them one level up. The http section is decoded once
// strictly, only to find such keys, then the whole configuration the usual
// way, so confighttp's own handling of its deprecated keys still applies.
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	if conf.IsSet("http") {
		sub, err := conf.Sub("http")
		if err != nil {
			return fmt.Errorf("http: %w", err)
		}
		probe := httpSection(confighttp.NewDefaultServerConfig())
		if err := sub.Unmarshal(&probe); err != nil {
			return fmt.Errorf("http: %w", err)
		}
	}
	return conf.Unmarshal(c)
}
