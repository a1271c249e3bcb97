package costapiextension

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// checkEndpoint binds http.endpoint once and releases it, before the private
// PostgreSQL starts and migrations run: a port already in use is then
// reported at once, naming the variable that moves it, and start-up leaves
// no half-started server behind. The real listener is opened when serving
// starts; losing the port in between is still reported there.
func (e *Extension) checkEndpoint(ctx context.Context) error {
	ln, err := e.cfg.HTTP.NetAddr.Listen(ctx)
	if err != nil {
		return endpointError(e.cfg.HTTP.NetAddr.Endpoint, err)
	}
	return ln.Close()
}

// endpointError says what is wrong with the endpoint and how to change it.
func endpointError(endpoint string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("http.endpoint: %s is already in use (another llmcost or another server): "+
			"stop it, or set LLMCOST_HTTP_ENDPOINT to a free host:port", endpoint)
	}
	return fmt.Errorf("http.endpoint: cannot listen on %s: %w (set LLMCOST_HTTP_ENDPOINT to a host:port of this machine)", endpoint, err)
}
