package hostext

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The pipeline components reach the API's server through this package
// (Lookup, the slot names), never by importing the API package: the
// dependency arrow runs from the extension to the API, not from a pipeline
// component. apiserver/respond, the one error envelope, imports no
// llmcost package but apierr, and stays shared.
func TestPipelineComponentsDoNotImportTheAPI(t *testing.T) {
	const api = "github.com/llmcost/llmcost/apiserver"
	var files []string
	for _, class := range []string{"receiver", "processor", "exporter"} {
		found, err := filepath.Glob("../../" + class + "/*/*.go")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		seen++
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == api {
				t.Errorf("%s imports %s", f, api)
			}
		}
	}
	if seen == 0 {
		t.Fatal("found no component source")
	}
}
