package costapiextension

import (
	"errors"
	"fmt"
	"net"

	"golang.org/x/net/netutil"
)

// validateSlowClients requires the timeouts that cut a slow client off: a
// zero read_header_timeout or read_timeout lets a client sending a byte a
// second hold a connection (and a handler) for ever.
func (c *Config) validateSlowClients() []error {
	var errs []error
	if c.HTTP.ReadHeaderTimeout <= 0 {
		errs = append(errs, errors.New("http.read_header_timeout: must be > 0, or a client sending its headers a byte at a time holds its connection for ever"))
	}
	if c.HTTP.ReadTimeout <= 0 {
		errs = append(errs, errors.New("http.read_timeout: must be > 0, or a client sending its body a byte at a time holds its connection for ever"))
	}
	if c.MaxConnections < 1 {
		errs = append(errs, fmt.Errorf("max_connections: must be ≥ 1, got %d", c.MaxConnections))
	}
	return errs
}

// limitConnections caps the connections ln hands out at max_connections.
func (c *Config) limitConnections(ln net.Listener) net.Listener {
	return netutil.LimitListener(ln, c.MaxConnections)
}
