package ingest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzScanObject holds scanObject to encoding/json: whenever it accepts an
// input, json.Unmarshal into a map of raw members gives the same members,
// byte for byte; it accepts no invalid JSON.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a": "x", "b" :[1, {"c": "}"}], "d":{"e":[]}, "f":null}`,
		`{"a":"x","a":"y"}`, `{"a\u0062":1}`, `{"a":"\"}\\"}`, `{"a":1,}`, `{"a" 1}`, `{"a":-1.5e3 , "b":true}`,
		`{"k":"é","l":"\ud800"}`, `[1]`, `{"a":{"b":{"c":[[[]]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := scanObject(in)
		if !ok {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatalf("scanObject accepted %q, which encoding/json refuses: %v", in, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", in, len(got), len(want))
		}
		for k, w := range want {
			if g, ok := got[k]; !ok || !bytes.Equal(g, w) {
				t.Fatalf("%q: member %q is %q, encoding/json %q", in, k, g, w)
			}
		}
	})
}

// TestPlainStringAsEncodingJSON: where plainString takes a string, it is
// encoding/json's string; escapes, invalid UTF-8 and non-strings go the
// slow way.
func TestPlainStringAsEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		in    string
		plain bool
	}{
		{`"abc"`, true}, {`""`, true}, {`"é ✓ 2026-11-22T10:00:00Z"`, true},
		{`"a\"b"`, false}, {`"a\u0000"`, false}, {`"\ud800"`, false}, {"\"\xff\"", false},
		{`12`, false}, {`null`, false}, {`"`, false},
	} {
		got, plain := plainString([]byte(c.in))
		if plain != c.plain {
			t.Errorf("plainString(%s) plain = %v, want %v", c.in, plain, c.plain)
			continue
		}
		if plain {
			var want string
			if err := json.Unmarshal([]byte(c.in), &want); err != nil || got != want {
				t.Errorf("plainString(%s) = %q, encoding/json %q (%v)", c.in, got, want, err)
			}
		}
	}
}

// FuzzSplitBatch holds decodeEnvelope's fast path to decodeStrict:
// whenever splitBatch accepts a valid body, decoding it with encoding/json
// succeeds with the same members, element by element and byte for byte.
func FuzzSplitBatch(f *testing.F) {
	for _, s := range []string{
		`{"events":[]}`, `{"events":null}`, `{}`, ` {"events" : [ {"a":1} , 2, "x", [3] ] , "outcomes":[{"t":"}"}]} `,
		`{"project_id":"p","events":[{}]}`, `{"project_id":null}`, `{"project_id":1}`, `{"Events":[]}`,
		`{"events":[],"events":[1]}`, `{"events":{}}`, `{"events":[1,]}`, `{"project_id":"\u0070"}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		got, ok := splitBatch(in)
		if !ok {
			return
		}
		var want rawBatch
		if err := decodeStrict(in, &want); err != nil {
			t.Fatalf("splitBatch accepted %q, which encoding/json refuses: %v", in, err)
		}
		if (got.ProjectID == nil) != (want.ProjectID == nil) || got.ProjectID != nil && *got.ProjectID != *want.ProjectID {
			t.Fatalf("%q: project_id %v, encoding/json %v", in, got.ProjectID, want.ProjectID)
		}
		for _, pair := range [][2][]json.RawMessage{{got.Events, want.Events}, {got.Outcomes, want.Outcomes}} {
			g, w := pair[0], pair[1]
			if (g == nil) != (w == nil) || len(g) != len(w) {
				t.Fatalf("%q: %d elements (nil %v), encoding/json %d (nil %v)", in, len(g), g == nil, len(w), w == nil)
			}
			for i := range w {
				if !bytes.Equal(g[i], w[i]) {
					t.Fatalf("%q: element %d is %q, encoding/json %q", in, i, g[i], w[i])
				}
			}
		}
	})
}

// TestCompactObjectAsJSONCompact: metadata comes out as json.Compact gives
// it, whether it was compact already (returned as it is) or not.
func TestCompactObjectAsJSONCompact(t *testing.T) {
	for _, in := range []string{`{}`, `{"a":"x y","b":[1,2]}`, `{ "a" : "x y" }`, `{"a":"\" }","b":{"c":null}}`,
		"{\"a\":\n[1,\t2]}", `{"a":"é \u00e9"}`, `{"k":"\\"}`} {
		got, ok := compactObject(json.RawMessage(in))
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil || !ok || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%q: %q (%v), json.Compact %q (%v)", in, got, ok, want.Bytes(), err)
		}
	}
}
