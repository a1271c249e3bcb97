package selfcontained

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var envVar = regexp.MustCompile(`LLMCOST_[A-Z0-9_]*[A-Z0-9]`)

// configDoc is where every variable is documented; the README shows the
// few a first session needs and links to it.
const configDoc = "docs/configuration.md"

// Every environment variable the binary reads, from the default
// configuration or from code, is documented in docs/configuration.md.
func TestEveryVariableIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(configDoc)))
	if err != nil {
		t.Fatal(err)
	}
	sources := []string{filepath.Join(root, "collector-config.yaml")}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "test" || d.Name() == "testdata"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			sources = append(sources, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, p := range sources {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range envVar.FindAllString(string(b), -1) {
			found[v] = p
		}
	}
	if len(found) < 10 {
		t.Fatalf("only %d variables found: the scan missed the sources", len(found))
	}
	for v, p := range found {
		if !strings.Contains(string(doc), "`"+v+"`") {
			t.Errorf("%s (read in %s) is not documented in %s", v, p, configDoc)
		}
	}
}
