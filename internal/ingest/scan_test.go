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
