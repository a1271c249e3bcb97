package providers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultAttempts = 4
	// DefaultMaxWait bounds one wait for a Retry-After: a provider asking
	// for longer is left alone until the next sync.
	DefaultMaxWait = time.Minute
	// maxPages stops a pagination that never ends (a cursor repeated by a
	// broken proxy) instead of looping for ever.
	maxPages = 200
	// maxBody bounds one page: a month of daily buckets grouped by model
	// is a few hundred kilobytes.
	maxBody = 16 << 20
)

// Options configure a client.
type Options struct {
	// BaseURL is the provider's origin (egress proxies, gateways, tests);
	// the public origin when empty.
	BaseURL string
	// HTTP sends the requests; NewHTTPClient's when nil.
	HTTP *http.Client
	// Attempts bounds the tries of one page answered 429 or 5xx.
	Attempts int
	// MaxWait bounds one wait for Retry-After.
	MaxWait time.Duration
	// Wait sleeps between attempts; tests replace it.
	Wait func(ctx context.Context, d time.Duration) error
	// UserAgent names llmcost to the provider.
	UserAgent string
}

func (o Options) withDefaults(base string) Options {
	if o.BaseURL == "" {
		o.BaseURL = base
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.HTTP == nil {
		o.HTTP, _ = NewHTTPClient("")
	}
	if o.Attempts <= 0 {
		o.Attempts = DefaultAttempts
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Wait == nil {
		o.Wait = sleep
	}
	if o.UserAgent == "" {
		o.UserAgent = "llmcost-reconciliation"
	}
	return o
}

// NewHTTPClient is the client the providers are called with: TLS verified,
// the system's CAs plus those of caFile (a PEM file, for egress proxies
// that re-sign), the environment's proxy settings, no redirects (a
// redirect would carry the admin key to another origin).
func NewHTTPClient(caFile string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("provider CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("provider CA file %s: no PEM certificate in it", caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, Timeout: DefaultTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// getJSON GETs path?query with the headers set, waiting out 429 and 5xx
// answers as Retry-After asks (exponential from one second without it),
// and decodes a 200 into dst.
func (o Options) getJSON(ctx context.Context, provider, path string, q url.Values, header http.Header, dst any) error {
	u := o.BaseURL + path + "?" + q.Encode()
	var last *Error
	for attempt := 1; attempt <= o.Attempts; attempt++ {
		err := o.getOnce(ctx, provider, u, header, dst)
		if err == nil {
			return nil
		}
		if !errors.As(err, &last) || last.Kind != KindTransient || attempt == o.Attempts {
			return err
		}
		wait := last.RetryAfter
		if wait == 0 {
			wait = time.Duration(1<<(attempt-1)) * time.Second
		}
		if wait > o.MaxWait {
			return err
		}
		if werr := o.Wait(ctx, wait); werr != nil {
			return &Error{Provider: provider, Kind: KindTransient, Message: "stopped while waiting to retry: " + werr.Error()}
		}
	}
	return last
}

func (o Options) getOnce(ctx context.Context, provider, u string, header http.Header, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &Error{Provider: provider, Kind: KindRequest, Message: "bad base URL"}
	}
	req.Header = header.Clone()
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", o.UserAgent)
	res, err := o.HTTP.Do(req)
	if err != nil {
		// The URL error names the URL (never the key, which is a header).
		return &Error{Provider: provider, Kind: KindTransient, Message: "unreachable: " + err.Error()}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		return &Error{Provider: provider, Kind: KindTransient, Status: res.StatusCode, Message: "answer cut off: " + err.Error()}
	}
	if res.StatusCode == http.StatusOK {
		if len(body) > maxBody {
			return &Error{Provider: provider, Kind: KindRequest, Status: 200, Message: "answer larger than 16 MiB"}
		}
		if err := json.Unmarshal(body, dst); err != nil {
			return &Error{Provider: provider, Kind: KindRequest, Status: 200, Message: "unreadable answer: " + err.Error()}
		}
		return nil
	}
	return statusError(provider, res, body)
}

// statusError classifies a non-200 answer, quoting the provider's own
// error message (its envelope's error.message) when there is one.
func statusError(provider string, res *http.Response, body []byte) *Error {
	e := &Error{Provider: provider, Status: res.StatusCode, Message: providerMessage(body)}
	switch s := res.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Kind = KindAuth
	case s == http.StatusTooManyRequests || s == http.StatusRequestTimeout || s >= 500:
		e.Kind = KindTransient
		e.RetryAfter = retryAfter(res.Header.Get("Retry-After"))
	case s >= 300 && s < 400:
		e.Kind = KindRequest
		e.Message = "redirected to " + res.Header.Get("Location") + " (not followed: the key stays with the provider)"
	default:
		e.Kind = KindRequest
	}
	return e
}

func providerMessage(body []byte) string {
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &env) == nil && env.Error.Message != "" {
		msg = env.Error.Message
	}
	return truncate(keyLike.ReplaceAllString(msg, "[key]"))
}

// keyLike matches a key as a provider may quote it in an error message
// (OpenAI quotes a masked key): the message is stored and shown, the key
// in any form is not.
var keyLike = regexp.MustCompile(`sk-[A-Za-z0-9_*\-.]{4,}`)

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	if s == "" {
		return "no message"
	}
	return s
}

// retryAfter reads delta-seconds or an HTTP date; 0 when absent or bad.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// page is the pagination both providers share.
type page struct {
	HasMore  bool    `json:"has_more"`
	NextPage *string `json:"next_page"`
}

// next returns the cursor of the following page, or "" at the end; a
// has_more without a cursor, or a cursor seen before, is an error.
func (p page) next(provider string, seen map[string]bool) (string, error) {
	if !p.HasMore {
		return "", nil
	}
	if p.NextPage == nil || *p.NextPage == "" {
		return "", &Error{Provider: provider, Kind: KindRequest, Status: 200, Message: "has_more without next_page"}
	}
	if seen[*p.NextPage] || len(seen) >= maxPages {
		return "", &Error{Provider: provider, Kind: KindRequest, Status: 200, Message: "pagination does not end"}
	}
	seen[*p.NextPage] = true
	return *p.NextPage, nil
}
