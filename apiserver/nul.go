package apiserver

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/internal/apierr"
)

// nulField finds the first member of a JSON body whose key or string value
// holds a NUL character (sent as \u0000): PostgreSQL's text refuses NUL,
// and a name or e-mail with one is a mistake or a probe. It answers "" for
// a body without one; the cheap byte test spares most bodies the walk.
func nulField(body []byte) string {
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return ""
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	path, found := findNUL(v, "")
	if !found {
		return ""
	}
	if path == "" {
		return "body"
	}
	return path
}

// findNUL walks v depth first, members in key order, and returns the path
// (a.b.0) of the first string holding NUL.
func findNUL(v any, path string) (string, bool) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := v.(type) {
	case string:
		return path, strings.ContainsRune(v, 0)
	case []any:
		for i, e := range v {
			if p, ok := findNUL(e, join(strconv.Itoa(i))); ok {
				return p, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.ContainsRune(k, 0) {
				return join(strings.ReplaceAll(k, "\x00", `\u0000`)), true
			}
			if p, ok := findNUL(v[k], join(k)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// refuseNUL is decode's check: a NUL anywhere is a 422 naming the field.
func refuseNUL(body []byte) error {
	if f := nulField(body); f != "" {
		return apierr.Field(f, "must not contain NUL characters")
	}
	return nil
}
