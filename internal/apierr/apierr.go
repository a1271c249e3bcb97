// Package apierr holds the domain errors of llmcost: a code a client can act
// on, a message safe to show, an optional hint, and a cause that is logged and
// never shown. It knows nothing of HTTP: apiserver/respond alone maps codes to
// statuses and writes the error envelope (the benbjohnson/wtf layering).
package apierr

import (
	"errors"
	"fmt"
	"time"
)

// Codes of the error envelope (docs/api.md "Errors").
const (
	BadRequest           = "bad_request"
	ValidationFailed     = "validation_failed"
	Unauthorized         = "unauthorized"
	Forbidden            = "forbidden"
	NotFound             = "not_found"
	MethodNotAllowed     = "method_not_allowed"
	Conflict             = "conflict"
	PayloadTooLarge      = "payload_too_large"
	UnsupportedMediaType = "unsupported_media_type"
	RateLimited          = "rate_limited"
	Unavailable          = "unavailable"
	Internal             = "internal"
	InvalidCredentials   = "invalid_credentials"
	// NotConfigured: the deployment lacks a setting the operation needs
	// (the key-encryption secret); no retry helps until an operator sets it.
	NotConfigured = "not_configured"
)

// Error is a domain error safe to show to the client.
type Error struct {
	Code    string
	Message string
	Hint    string
	// Cause is logged by the server and never written to the client.
	Cause error
	// RetryAfter, on an unavailable error, is how long the client should
	// wait before retrying (the server's default when 0).
	RetryAfter time.Duration
}

// Error implements error.
func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Code + ": " + e.Message + ": " + e.Cause.Error()
	}
	return e.Code + ": " + e.Message
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Cause }

// New builds an Error.
func New(code, message string) *Error { return &Error{Code: code, Message: message} }

// Newf builds an Error with a formatted message.
func Newf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap builds an Error that keeps cause for the log.
func Wrap(cause error, code, message string) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

// WithRetryAfter returns e asking the client to wait d before retrying.
func (e *Error) WithRetryAfter(d time.Duration) *Error { e.RetryAfter = d; return e }

// WithHint returns e with a hint for the client.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// Field reports a validation failure of one named field.
func Field(field, rule string) *Error {
	return &Error{Code: ValidationFailed, Message: field + ": " + rule}
}

// Unavailablef wraps a transient failure (database down, timeout): the
// client may retry the same request later.
func Unavailablef(cause error, format string, args ...any) *Error {
	return &Error{Code: Unavailable, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// As converts any error into an *Error: an unknown error becomes internal.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error", Cause: err}
}

// CodeOf is the code of err (internal for an error that is not an *Error).
func CodeOf(err error) string { return As(err).Code }
