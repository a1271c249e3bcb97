// Package respond is the one place where domain errors become HTTP: the
// status of each apierr code, the error envelope {error:{code, message,
// hint}}, and the adapter that turns the handler shape every route uses,
// func(w, r) error, into an http.Handler. apiserver and the pipeline's
// receiver both answer through it, so every error looks the same.
package respond

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Func is the handler shape: it writes its success answer itself and
// returns an error for the adapter to answer.
type Func func(w http.ResponseWriter, r *http.Request) error

// RetryAfterSeconds is what a 503 tells clients to wait before retrying.
const RetryAfterSeconds = 5

// unavailableHint is the hint of a 503 that names none of its own.
const unavailableHint = "a transient failure; retry after the Retry-After delay"

var statusByCode = map[string]int{
	apierr.BadRequest:           http.StatusBadRequest,
	apierr.ValidationFailed:     http.StatusUnprocessableEntity,
	apierr.Unauthorized:         http.StatusUnauthorized,
	apierr.InvalidCredentials:   http.StatusUnauthorized,
	apierr.Forbidden:            http.StatusForbidden,
	apierr.NotFound:             http.StatusNotFound,
	apierr.MethodNotAllowed:     http.StatusMethodNotAllowed,
	apierr.Conflict:             http.StatusUnprocessableEntity,
	apierr.PayloadTooLarge:      http.StatusRequestEntityTooLarge,
	apierr.UnsupportedMediaType: http.StatusUnsupportedMediaType,
	apierr.RateLimited:          http.StatusTooManyRequests,
	apierr.Unavailable:          http.StatusServiceUnavailable,
	apierr.Internal:             http.StatusInternalServerError,
	apierr.NotConfigured:        http.StatusNotImplemented,
}

// Status is the HTTP status of an apierr code; an unknown code is a 500.
func Status(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Handler adapts f: an error it returns is logged when it is the server's
// fault (5xx, with its cause) and answered as the error envelope.
func Handler(log *zap.Logger, f Func) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			Fail(log, w, r, err)
		}
	})
}

// Fail logs the cause of a server-side error and writes the envelope.
func Fail(log *zap.Logger, w http.ResponseWriter, r *http.Request, err error) {
	e := apierr.As(err)
	if Status(e.Code) >= 500 {
		log.Warn("request failed", zap.String("method", r.Method), zap.String("path", r.URL.Path),
			zap.String("code", e.Code), zap.String("message", e.Message), zap.Error(e.Cause))
	}
	Error(w, e)
}

type envelope struct {
	Error body `json:"error"`
}

type body struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Error writes err as the error envelope with its status; a 503 carries
// Retry-After.
func Error(w http.ResponseWriter, err error) {
	e := apierr.As(err)
	status, hint := Status(e.Code), e.Hint
	if status == http.StatusServiceUnavailable {
		after := RetryAfterSeconds
		if e.RetryAfter > 0 {
			after = int((e.RetryAfter + time.Second - 1) / time.Second)
		}
		w.Header().Set("Retry-After", strconv.Itoa(after))
		if hint == "" {
			hint = unavailableHint
		}
	}
	_ = JSON(w, status, envelope{Error: body{Code: e.Code, Message: e.Message, Hint: hint}})
}

// detailBody is the {detail} body of a bad API key, with the
// error envelope beside it so that every error can be read one way.
type detailBody struct {
	Detail string `json:"detail"`
	Error  body   `json:"error"`
}

// Detail writes the {detail} body of an invalid API key, and the envelope
// {error:{code, message}} beside it (docs/api.md "Errors").
func Detail(w http.ResponseWriter, status int, code, detail string) {
	_ = JSON(w, status, detailBody{Detail: detail, Error: body{Code: code, Message: detail}})
}

// ContentType is the media type of every JSON answer: RFC 8259 makes
// UTF-8 JSON's only encoding, but clients that read charset (and some that
// default to Latin-1 without it) get it stated.
const ContentType = "application/json; charset=utf-8"

// JSON writes v as JSON with status. It returns nil so that a handler can
// end with return respond.JSON(...).
func JSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
	return nil
}

// NoContent answers 204 with no body.
func NoContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}
