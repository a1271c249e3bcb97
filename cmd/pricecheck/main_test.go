package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

const fixture = "../../testdata/fixtures/pricing/genai-prices-subset-2026-11.json"

// TestRunPrintsTheAgreement runs the command on the committed genai-prices
// fixture at one time and checks its figures against pricing.Compare.
func TestRunPrintsTheAgreement(t *testing.T) {
	var out bytes.Buffer
	at := time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)
	if err := run([]string{"-at", at.Format(time.RFC3339), fixture}, &out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	entries, _, _, err := pricing.ParseAny(data)
	if err != nil {
		t.Fatal(err)
	}
	a := pricing.Builtin().Compare(entries, []pricing.CallTime{{Name: "mon-23nov-02:00", At: at}})
	if a.Calls < 100 {
		t.Fatalf("only %d calls compared", a.Calls)
	}
	want := fmt.Sprintf("agreement: %d of %d calls (%.2f%%)\n", a.Agreeing, a.Calls, a.Percent())
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	if n := strings.Count(out.String(), "\ndiffers: "); n != len(a.Differences) || n == 0 {
		t.Errorf("%d differing calls printed, want %d (> 0):\n%s", n, len(a.Differences), out.String())
	}
	if !strings.Contains(out.String(), "grok-4.5/cache read@mon-23nov-02:00 (built-in grok-4.5)") {
		t.Errorf("a difference is not named by its call:\n%s", out.String())
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{{}, {"-at", "monday", fixture}, {"/nonexistent/prices.json"}} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}
