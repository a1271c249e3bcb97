package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every component's committed status package is what its metadata.yaml
// gives now: an edit to one without the other fails here.
func TestCommittedStatusIsCurrent(t *testing.T) {
	files, err := filepath.Glob("../../*/*/metadata.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("found %d components with a metadata.yaml, want the four of the distribution: %v", len(files), files)
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		want, err := generate(dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, outputPath))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s is not what its metadata.yaml gives (%v): run make generate", filepath.Join(dir, outputPath), err)
		}
	}
}

func TestRender(t *testing.T) {
	dir := writeMetadata(t, "type: sample\nstatus:\n  class: connector\n  stability:\n    stable: [logs_to_metrics]\n    alpha: [traces_to_traces, logs_to_logs]\n")
	src, err := generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := string(src)
	for _, want := range []string{
		`Type = component.MustNewType("sample")`,
		`ScopeName = "example.com/m/comp"`,
		"TracesToTracesStability = component.StabilityLevelAlpha",
		"LogsToMetricsStability = component.StabilityLevelStable",
		"build information for the\n// connector/sample component.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	// mdatagen's order: by level, lowest first, then as listed.
	if i, j, k := strings.Index(got, "TracesToTraces"), strings.Index(got, "LogsToLogs"), strings.Index(got, "LogsToMetrics"); i > j || j > k {
		t.Errorf("constants out of order:\n%s", got)
	}
}

func TestRejects(t *testing.T) {
	cases := map[string]string{
		"type:":                  "type: 9lives\nstatus:\n  class: receiver\n  stability:\n    alpha: [logs]\n",
		"status.class":           "type: x\nstatus:\n  class: scraper\n  stability:\n    alpha: [logs]\n",
		"names no signal":        "type: x\nstatus:\n  class: receiver\n",
		"unknown level":          "type: x\nstatus:\n  class: receiver\n  stability:\n    gamma: [logs]\n",
		"lower case letters":     "type: x\nstatus:\n  class: receiver\n  stability:\n    alpha: [Logs]\n",
		"expected type 'string'": "type: [x]\n",
	}
	for want, yaml := range cases {
		if _, err := generate(writeMetadata(t, yaml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", yaml, err, want)
		}
	}
}

func TestRunWritesOnlyAChange(t *testing.T) {
	dir := writeMetadata(t, "type: x\nstatus:\n  class: receiver\n  stability:\n    beta: [logs]\n")
	path := filepath.Join(dir, "metadata.yaml")
	if err := run(path); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, outputPath)
	first, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(out, first.ModTime().Add(-1e9), first.ModTime().Add(-1e9)); err != nil {
		t.Fatal(err)
	}
	if err := run(path); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(out); !again.ModTime().Equal(first.ModTime().Add(-1e9)) {
		t.Error("an unchanged status file was written again")
	}
}

// writeMetadata lays out a module example.com/m with one component, comp,
// whose metadata.yaml is yaml; it returns the component's directory.
func writeMetadata(t *testing.T, yaml string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "comp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m // the test's\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
