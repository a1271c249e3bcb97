package ingest

import (
	"encoding/json"
	"unicode/utf8"
)

// Decoding a batch with encoding/json alone calls it once per event for its
// members and once more per member, a large share of what ingest can spend
// on a small machine (BenchmarkDecodeBatch; docs/performance.md). Two fast
// paths give exactly what encoding/json gives for the common shapes and fall
// back to it for everything else: scanObject splits a valid object whose
// keys carry no escapes, plainString takes a string without escapes.
// FuzzScanObject and TestPlainStringAsEncodingJSON hold them to
// encoding/json's answers. The batch's envelope (decodeEnvelope), metadata
// kept as sent when already compact, and reused member maps save most of the
// rest of the allocations.

// scanObject splits msg, a JSON object, into its members as
// json.Unmarshal into map[string]json.RawMessage does (a repeated key: the
// last wins), the values sharing msg's bytes. ok is false for invalid JSON
// and for a key with an escape or invalid UTF-8: the caller decodes those
// with encoding/json.
func scanObject(msg []byte) (map[string]json.RawMessage, bool) {
	if !json.Valid(msg) {
		return nil, false
	}
	return scanValid(msg)
}

// scanValid is scanObject for msg already known to be valid JSON: each
// event of a batch, which the batch's decoder validated whole: validating
// it again would be paid twice for nothing.
func scanValid(msg []byte) (map[string]json.RawMessage, bool) {
	fields := make(map[string]json.RawMessage, 24)
	return fields, scanInto(msg, fields)
}

// scanInto is scanValid into fields, an empty map (an event's or its
// metadata's, reused from batch to batch: allocating two maps per event
// was about a tenth of the decoding's CPU). The map may hold part of msg's
// members when it answers false.
func scanInto(msg []byte, fields map[string]json.RawMessage) bool {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return false
	}
	i = skipSpace(msg, i+1)
	if i < len(msg) && msg[i] == '}' {
		return true
	}
	for i < len(msg) {
		if msg[i] != '"' {
			return false
		}
		end := stringEnd(msg, i)
		if end < 0 {
			return false
		}
		key, plain := keyString(msg[i:end])
		if !plain {
			return false // escapes, or bytes encoding/json would replace
		}
		i = skipSpace(msg, end)
		if i >= len(msg) || msg[i] != ':' {
			return false
		}
		start := skipSpace(msg, i+1)
		stop := valueEnd(msg, start)
		if stop < 0 {
			return false
		}
		fields[key] = msg[start:stop:stop]
		i = skipSpace(msg, stop)
		if i >= len(msg) {
			return false
		}
		switch msg[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(msg, i+1)
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the closing quote of the string at b[i],
// or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd is the index after the (valid) JSON value starting at b[i], or
// -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i // a number or a literal
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// keyString is plainString for a member's key: a known member name comes
// back as the one string the program holds for it, without allocating.
func keyString(v []byte) (string, bool) {
	if len(v) >= 2 {
		if k, ok := knownKeys[string(v[1:len(v)-1])]; ok {
			return k, true
		}
	}
	return plainString(v)
}

// knownKeys are the member names of events, outcomes, the metadata keys
// ingest reads and the batch's envelope.
var knownKeys = func() map[string]string {
	out := map[string]string{}
	for _, known := range []map[string]bool{knownEventFields, knownOutcomeFields} {
		for k := range known {
			out[k] = k
		}
	}
	for _, k := range []string{"user_id", "session_id", "billing", "events", "outcomes", "project_id"} {
		out[k] = k
	}
	return out
}()

// plainString is the string v, a JSON string token, holds when it has no
// escape and is valid UTF-8: then json.Unmarshal would give the same bytes
// and CheckJSONText could find nothing in it.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// decodeEnvelope decodes a batch body as decodeStrict into a rawBatch
// does, most of the time without it: encoding/json's Decoder copied the
// body, scanned it whole to find its end, then scanned it again to
// unmarshal it, copying every event (about a quarter of DecodeBatch's CPU).
// A valid body (one scan) of the common shape is split by splitBatch
// instead, its events sharing the body's bytes; any other body, valid or
// not, goes to decodeStrict for its answer and its errors.
// FuzzSplitBatch holds the two to the same result.
func decodeEnvelope(body []byte) (rawBatch, error) {
	if json.Valid(body) {
		if raw, ok := splitBatch(body); ok {
			return raw, nil
		}
	}
	var raw rawBatch
	err := decodeStrict(body, &raw)
	return raw, err
}

// splitBatch splits body, valid JSON, into a rawBatch when it is an object
// whose members are exactly named events, outcomes (arrays or null) or
// project_id (a plain string or null). Anything else (another member,
// which encoding/json would match case-insensitively; a value of another
// type, which it would refuse by field) answers false.
func splitBatch(body []byte) (rawBatch, bool) {
	var raw rawBatch
	fields, ok := scanValid(body)
	if !ok {
		return raw, false
	}
	for k, v := range fields {
		switch k {
		case "events":
			raw.Events, ok = splitArray(v)
		case "outcomes":
			raw.Outcomes, ok = splitArray(v)
		case "project_id":
			if string(v) != "null" {
				var id string
				id, ok = plainString(v)
				raw.ProjectID = &id
			}
		default:
			ok = false
		}
		if !ok {
			return rawBatch{}, false
		}
	}
	return raw, true
}

// splitArray splits v, a valid JSON array or null, into its elements,
// which share v's bytes.
func splitArray(v []byte) ([]json.RawMessage, bool) {
	if string(v) == "null" {
		return nil, true
	}
	if len(v) < 2 || v[0] != '[' {
		return nil, false
	}
	out := []json.RawMessage{}
	i := skipSpace(v, 1)
	if v[i] == ']' {
		return out, true
	}
	for i < len(v) {
		end := valueEnd(v, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, v[i:end:end])
		i = skipSpace(v, end)
		if i >= len(v) {
			return nil, false
		}
		switch v[i] {
		case ']':
			return out, true
		case ',':
			i = skipSpace(v, i+1)
		default:
			return nil, false
		}
	}
	return nil, false
}
