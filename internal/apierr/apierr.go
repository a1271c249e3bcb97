// Package apierr holds the domain errors every handler returns and the one
// place where their codes become HTTP statuses and the error envelope
// {error:{code, message, hint}}. Internal causes are logged, never shown.
package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// Codes of the error envelope (API-DECISIONS.md "Errors").
const (
	BadRequest           = "bad_request"
	ValidationFailed     = "validation_failed"
	Unauthorized         = "unauthorized"
	Forbidden            = "forbidden"
	NotFound             = "not_found"
	Conflict             = "conflict"
	PayloadTooLarge      = "payload_too_large"
	UnsupportedMediaType = "unsupported_media_type"
	RateLimited          = "rate_limited"
	Unavailable          = "unavailable"
	Internal             = "internal"
	InvalidCredentials   = "invalid_credentials"
)

var statusByCode = map[string]int{
	BadRequest:           http.StatusBadRequest,
	ValidationFailed:     http.StatusUnprocessableEntity,
	Unauthorized:         http.StatusUnauthorized,
	InvalidCredentials:   http.StatusUnauthorized,
	Forbidden:            http.StatusForbidden,
	NotFound:             http.StatusNotFound,
	Conflict:             http.StatusUnprocessableEntity,
	PayloadTooLarge:      http.StatusRequestEntityTooLarge,
	UnsupportedMediaType: http.StatusUnsupportedMediaType,
	RateLimited:          http.StatusTooManyRequests,
	Unavailable:          http.StatusServiceUnavailable,
	Internal:             http.StatusInternalServerError,
}

// RetryAfterSeconds is what a 503 tells clients to wait before retrying.
const RetryAfterSeconds = 5

// Error is a domain error safe to show to the client.
type Error struct {
	Code    string
	Message string
	Hint    string
	// Cause is logged by the server and never written to the client.
	Cause error
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

// Status is the HTTP status of the error's code.
func (e *Error) Status() int {
	if s, ok := statusByCode[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// New builds an Error.
func New(code, message string) *Error { return &Error{Code: code, Message: message} }

// Newf builds an Error with a formatted message.
func Newf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns e with a hint for the client.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// Field reports a validation failure of one named field.
func Field(field, rule string) *Error {
	return &Error{Code: ValidationFailed, Message: field + ": " + rule}
}

// Unavailablef wraps a transient failure (database down, timeout) as a 503.
func Unavailablef(cause error, format string, args ...any) *Error {
	return &Error{Code: Unavailable, Message: fmt.Sprintf(format, args...), Cause: cause,
		Hint: "a transient failure; retry after the Retry-After delay"}
}

// As converts any error into an *Error: an unknown error becomes internal.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error", Cause: err}
}

type envelope struct {
	Error body `json:"error"`
}

type body struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Write writes err as the error envelope with its status.
func Write(w http.ResponseWriter, err error) {
	e := As(err)
	status := e.Status()
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	}
	WriteJSON(w, status, envelope{Error: body{Code: e.Code, Message: e.Message, Hint: e.Hint}})
}

// WriteDetail writes the simpler {detail} body used for a bad API key.
func WriteDetail(w http.ResponseWriter, status int, detail string) {
	WriteJSON(w, status, map[string]string{"detail": detail})
}

// WriteJSON writes v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
