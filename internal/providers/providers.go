// Package providers reads the providers' own account of what they billed:
// Anthropic's Usage and Cost Admin API and OpenAI's organization Usage and
// Costs API. Each client turns its provider's daily buckets into the same
// normalised rows (tokens by class, cost by model and class, exact
// nano-USD), following every page. It stores nothing.
package providers

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Providers that can be connected.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"
)

// Token classes: how the providers split a call's tokens, and the names
// the reconciliation report uses for them. Input is the uncached prompt.
const (
	ClassInput        = "input"
	ClassCacheRead    = "cache_read"
	ClassCacheWrite5m = "cache_write_5m"
	ClassCacheWrite1h = "cache_write_1h"
	ClassOutput       = "output"
)

// Service tiers as rows carry them; a provider's own spellings are mapped
// to these ("default" is standard).
const (
	TierStandard = "standard"
	TierBatch    = "batch"
	TierPriority = "priority"
	TierFlex     = "flex"
)

// Scope narrows a connection to one project's share of the bill.
type Scope struct {
	WorkspaceIDs []string // Anthropic workspaces
	ProjectIDs   []string // OpenAI projects
	APIKeyIDs    []string // either provider's API key ids
}

// Tokens are one bucket's tokens by class.
type Tokens struct {
	Input, CacheRead, CacheWrite5m, CacheWrite1h, Output int64
}

// Add returns the sum of t and o.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{t.Input + o.Input, t.CacheRead + o.CacheRead, t.CacheWrite5m + o.CacheWrite5m,
		t.CacheWrite1h + o.CacheWrite1h, t.Output + o.Output}
}

// Usage is one day's usage of one model in one tier.
type Usage struct {
	Day      time.Time // UTC midnight
	Model    string
	Tier     string
	Tokens   Tokens
	Requests int64
}

// Cost is one day's cost of one model's token class in one tier. Model is
// empty for charges not tied to a model; Class is empty when the provider
// does not name one.
type Cost struct {
	Day   time.Time
	Model string
	Class string
	Tier  string
	Nano  int64
}

// Report is what a fetch returns for the days [From, To).
type Report struct {
	From, To time.Time
	Usage    []Usage
	Costs    []Cost
	// NoCosts is set when the cost report cannot be narrowed to the
	// connection's scope (Anthropic's has no API key filter): Costs is
	// empty and the report compares tokens only.
	NoCosts bool
}

// Client fetches a provider's daily usage and costs for [from, to), both
// UTC midnights, with the organisation's admin key.
type Client interface {
	Fetch(ctx context.Context, adminKey string, scope Scope, from, to time.Time) (Report, error)
}

// Kinds of Error.
const (
	// KindAuth: the key was refused (401, 403). Retrying will not help.
	KindAuth = "auth"
	// KindTransient: the provider was away, overloaded or rate limiting
	// past what the client waits; the sync is retried later.
	KindTransient = "transient"
	// KindRequest: the provider refused the request as malformed (400,
	// 404, 422) or answered something unreadable: a bug or an API change,
	// retried later like a transient failure but reported as it is.
	KindRequest = "request"
)

// Error is a failed fetch. Its message never contains the key.
type Error struct {
	Provider string
	Kind     string
	Status   int // HTTP status, 0 for a network failure
	// RetryAfter is the provider's Retry-After on a final 429 or 503.
	RetryAfter time.Duration
	Message    string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s answered %d: %s", e.Provider, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Provider, e.Message)
}

// KindOf is the kind of a fetch error: a context end is transient.
func KindOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindTransient
}

// Day truncates t to its UTC day.
func Day(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// AsError finds the *Error in err's chain.
func AsError(err error, e **Error) bool { return errors.As(err, e) }
