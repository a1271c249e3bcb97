// Package selfcontained checks that a fresh clone stands on its own: no
// test, build script or document reaches for files beside the checkout.
package selfcontained

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outside matches a path that climbs out of the repository to the sibling
// folder the project's contract and fixtures once lived in, or names one of
// the contract's documents that are not in the repository (docs/api.md
// states the contract). It is spelt so that this file does not match
// itself; the path elements catch names given one by one to filepath.Join.
var outside = regexp.MustCompile("\\.\\./shared\\b|shared/fixture[s]|\x60shared/\x60|" +
	`"\.\.",\s*"shared"|"shared",\s*"fixtures"|` +
	`\bSPEC[.]md|API-DECISION[S]|\bARCHITECTURE[.]md`)

// checked says which files a fresh clone runs or shows a reader.
func checked(rel string) bool {
	base := filepath.Base(rel)
	switch {
	case base == "Makefile", strings.HasPrefix(rel, ".ci/"), strings.HasPrefix(rel, "scripts/"):
		return true
	}
	switch filepath.Ext(base) {
	case ".go", ".md", ".yaml", ".yml", ".sh", ".mk":
		return true
	}
	return false
}

func TestNothingReferencesFilesBesideTheCheckout(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || d.Name() == "bin") {
				return filepath.SkipDir // .git, the private data dir, build output
			}
			return nil
		}
		if !checked(filepath.ToSlash(rel)) {
			return nil
		}
		seen++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range outside.FindAllIndex(b, -1) {
			line := 1 + strings.Count(string(b[:m[0]]), "\n")
			t.Errorf("%s:%d refers to a file outside the repository: %s", rel, line, b[m[0]:m[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("only %d files checked under %s: the walk missed the repository", seen, root)
	}
}

// The fixtures the tests read are part of the repository.
func TestFixturesAreInTheRepository(t *testing.T) {
	for _, f := range []string{
		"otlp/claude_code_session.json", "otlp/claude_code_session.json.gz", "otlp/codex_session.json",
		"otlp/gemini_cli_session.json", "otlp/genai_semconv.json", "otlp/mixed_and_malformed.json",
		"otlp/claude_code_session.expected.json", "pricing/litellm-subset-2026-07.json",
	} {
		if _, err := os.Stat(filepath.Join("..", "..", "testdata", "fixtures", f)); err != nil {
			t.Errorf("fixture %s: %v", f, err)
		}
	}
}
