package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"code.dny.dev/ssrf"
)

// Timeout bounds one delivery attempt, connection included.
const Timeout = 10 * time.Second

// Options configure the client.
type Options struct {
	// AllowPrivate lets deliveries reach loopback, private and link-local
	// addresses (self-hosting next to the receiver, tests):
	// LLMCOST_WEBHOOK_ALLOW_PRIVATE=true.
	AllowPrivate bool
	// CAFile is a PEM file of extra CAs to trust: LLMCOST_WEBHOOK_CA_FILE.
	CAFile string
}

// Client sends deliveries.
type Client struct {
	http         *http.Client
	allowPrivate bool
}

// NewClient builds the client: every connection's address is checked
// after DNS resolution by ssrf's dialer Control, so a name that resolves
// to loopback or to the metadata address is refused like the address
// itself; redirects are never followed.
func NewClient(o Options) (*Client, error) {
	dialer := &net.Dialer{Timeout: Timeout}
	if !o.AllowPrivate {
		dialer.Control = ssrf.New(ssrf.WithAnyPort()).Safe
	}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: Timeout,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second, ForceAttemptHTTP2: true}
	if o.CAFile != "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("webhook CA file: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("webhook CA file %s: no PEM certificate in it", o.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	hc := &http.Client{Transport: tr, Timeout: Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Client{http: hc, allowPrivate: o.AllowPrivate}, nil
}

// AllowPrivate reports whether private destinations are allowed.
func (c *Client) AllowPrivate() bool { return c.allowPrivate }

// Result is one attempt's outcome.
type Result struct {
	Delivered  bool
	StatusCode int
	Err        error
	Duration   time.Duration
}

// ErrNotHTTPS refuses a url with another scheme.
var ErrNotHTTPS = errors.New("webhook url must be https")

// Send POSTs the envelope body signed with secret. Only a 2xx reply is
// delivered; a redirect is a failure like any other status.
func (c *Client) Send(ctx context.Context, rawURL, secret, id string, body []byte, now time.Time) Result {
	start := time.Now()
	res := c.send(ctx, rawURL, secret, id, body, now)
	res.Duration = time.Since(start)
	return res
}

func (c *Client) send(ctx context.Context, rawURL, secret, id string, body []byte, now time.Time) Result {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" {
		return Result{Err: ErrNotHTTPS}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return Result{Err: err}
	}
	for k, v := range SignedHeaders(secret, id, now, body) {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "llmcost-webhook/1")
	resp, err := c.http.Do(req)
	if err != nil {
		return Result{Err: err}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Result{StatusCode: resp.StatusCode, Err: fmt.Errorf("receiver answered %d", resp.StatusCode)}
	}
	return Result{Delivered: true, StatusCode: resp.StatusCode}
}
