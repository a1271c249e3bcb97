// Command mdstatus writes a collector component's status package,
// internal/metadata/generated_status.go (its type, scope name and the
// stability of each signal), from the component's metadata.yaml. It is the
// part of the collector's mdatagen that llmcost's components use: mdatagen
// is not served by the Go module proxy this project builds from, so it
// cannot be pinned as a Go tool in go.mod (docs/architecture.md). The input
// is mdatagen's own schema, so mdatagen can take over without a change to
// any metadata.yaml.
//
// Each component runs it from its go:generate directive, and make generate
// runs those:
//
//	go run github.com/llmcost/llmcost/cmd/mdstatus metadata.yaml
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	path := "metadata.yaml"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := run(path); err != nil {
		fmt.Fprintln(os.Stderr, "mdstatus:", err)
		os.Exit(1)
	}
}

// run writes the status package of the component whose metadata.yaml is
// path; an unchanged file is left alone.
func run(path string) error {
	dir := filepath.Dir(path)
	src, err := generate(dir)
	if err != nil {
		return err
	}
	out := filepath.Join(dir, outputPath)
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, src) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// outputPath is where mdatagen puts the status code, relative to the
// component's directory.
const outputPath = "internal/metadata/generated_status.go"

// generate returns the status file of the component in dir.
func generate(dir string) ([]byte, error) {
	md, err := load(filepath.Join(dir, "metadata.yaml"))
	if err != nil {
		return nil, err
	}
	scope, err := importPath(dir)
	if err != nil {
		return nil, err
	}
	return render(md, scope)
}

// importPath is the Go import path of the package in dir, the component's
// instrumentation scope name: the module path from the nearest go.mod
// above dir, joined with dir's place in that module.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for root := abs; ; {
		data, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err == nil {
			module, err := modulePath(data)
			if err != nil {
				return "", err
			}
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == "." {
				return module, err
			}
			return module + "/" + filepath.ToSlash(rel), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("no go.mod above %s", abs)
		}
		root = parent
	}
}

// modulePath reads the module directive of a go.mod.
func modulePath(gomod []byte) (string, error) {
	for line := range strings.SplitSeq(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", errors.New("go.mod has no module directive")
}
