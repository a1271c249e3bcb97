package postgres

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

// The .sql files of queries/ are valid SQL as written, so a reader can run
// one in psql and a test can EXPLAIN each (docs/architecture.md#sql).
// Parameters are named (@name, pgx.NamedArgs), declared at the top of the
// file. The parts that differ per read are marker comments, as River's
// sqlctemplate has them:
//
//	/* TEMPLATE: name */                                   empty as written
//	/* TEMPLATE_BEGIN: name */ default /* TEMPLATE_END */  the default as written
//
// fillSQL replaces them; every text is filled once, when the package loads.

//go:embed queries/*.sql
var queryFS embed.FS

// mustQuery is the text of queries/name.
func mustQuery(name string) string {
	b, err := queryFS.ReadFile("queries/" + name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// queryBody is queries/name without its leading comment lines, for a text
// that goes inside another (window.sql inside a report's src).
func queryBody(name string) string {
	lines := strings.Split(mustQuery(name), "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "--") {
		i++
	}
	return strings.TrimSpace(strings.Join(lines[i:], "\n"))
}

var templateMarker = regexp.MustCompile(
	`/\* TEMPLATE: (\w+) \*/|/\* TEMPLATE_BEGIN: (\w+) \*/(?s:.*?)/\* TEMPLATE_END \*/`)

// fillSQL replaces the markers of sql named in parts by their text; a
// marker parts does not name keeps its default (empty for TEMPLATE:). A
// name of parts that sql lacks is a mistake in the caller, and panics:
// the texts are filled at start, so a test run finds it.
func fillSQL(sql string, parts map[string]string) string {
	used := map[string]bool{}
	out := templateMarker.ReplaceAllStringFunc(sql, func(m string) string {
		sub := templateMarker.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		part, ok := parts[name]
		if !ok {
			if sub[1] != "" {
				return ""
			}
			def := strings.TrimPrefix(m, "/* TEMPLATE_BEGIN: "+name+" */")
			return strings.TrimSpace(strings.TrimSuffix(def, "/* TEMPLATE_END */"))
		}
		used[name] = true
		return part
	})
	for name := range parts {
		if !used[name] {
			panic(fmt.Sprintf("postgres: no template marker %q in %.60q", name, sql))
		}
	}
	return out
}
