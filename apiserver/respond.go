package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/apierr"
)

// maxAccountBody bounds request bodies of the account and project routes.
const maxAccountBody = 64 << 10

// decode reads a JSON object into dst: malformed JSON is 400, a wrong type
// is 422 naming the field, unknown fields and trailing data are refused,
// and so is a NUL character in any key or string (422 naming the field).
func decode(r *http.Request, dst any) error {
	body, err := readJSON(r)
	if err != nil {
		return err
	}
	if err := refuseNUL(body); err != nil {
		return err
	}
	return decodeBody(body, dst)
}

// readJSON reads a bounded, UTF-8 request body.
func readJSON(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAccountBody+1))
	if err != nil {
		return nil, apierr.New(apierr.BadRequest, "could not read the request body")
	}
	if len(body) > maxAccountBody {
		return nil, apierr.Newf(apierr.PayloadTooLarge, "request body exceeds %d bytes", maxAccountBody)
	}
	if !utf8.Valid(body) {
		return nil, apierr.New(apierr.BadRequest, "body is not valid UTF-8")
	}
	return body, nil
}

// decodeBody decodes body strictly into dst.
func decodeBody(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" { // the body itself: an array, a string
				return apierr.Field("body", "must be a JSON object, got a JSON "+te.Value)
			}
			return apierr.Field(te.Field, "has the wrong type: must be "+te.Type.String())
		}
		if err == io.EOF {
			return apierr.New(apierr.BadRequest, "malformed JSON: empty body")
		}
		return apierr.Newf(apierr.BadRequest, "malformed JSON: %v", err)
	}
	if dec.More() {
		return apierr.New(apierr.BadRequest, "malformed JSON: data after the top-level value")
	}
	return nil
}

// ok writes v as the JSON answer with status.
func ok(w http.ResponseWriter, status int, v any) error { return respond.JSON(w, status, v) }

// noContent answers 204.
func noContent(w http.ResponseWriter) error { return respond.NoContent(w) }

// ts formats a timestamp the way every response does.
func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
