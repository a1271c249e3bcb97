// Command pricecheck compares the built-in price catalogue with a price
// file in LiteLLM's or genai-prices' format, as the agreement check of
// docs/pricing.md does: every model of the six providers the file lists,
// under each of its names, in four usage shapes at the given times, priced
// both ways to the nano-dollar. It prints the agreement and every call
// priced differently. make price-check PRICES=<file> runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pricecheck:", err)
		os.Exit(2)
	}
}

// defaultTimes are the committed check's call times: a Monday in and out
// of DeepSeek's peak hours, and a Tuesday evening.
const defaultTimes = "2026-11-23T02:00:00Z,2026-11-23T14:00:00Z,2026-11-24T20:00:00Z"

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("pricecheck", flag.ContinueOnError)
	fs.SetOutput(out)
	at := fs.String("at", defaultTimes, "call times, RFC 3339, comma-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: pricecheck [-at times] <price file>")
	}
	times, err := parseTimes(*at)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	entries, _, format, err := pricing.ParseAny(data)
	if err != nil {
		return err
	}
	a := pricing.Builtin().Compare(entries, times)
	fmt.Fprintf(out, "%s (%s format, %d entries) against %s:\n", fs.Arg(0), format, len(entries), pricing.BuiltinSource)
	fmt.Fprintf(out, "agreement: %d of %d calls (%.2f%%)\n", a.Agreeing, a.Calls, a.Percent())
	providers := make([]string, 0, len(a.PerProvider))
	for p := range a.PerProvider {
		providers = append(providers, p)
	}
	sort.Strings(providers)
	for _, p := range providers {
		n := a.PerProvider[p]
		fmt.Fprintf(out, "  %-9s %d of %d\n", p, n[0], n[1])
	}
	for _, d := range a.Differences {
		fmt.Fprintf(out, "differs: %s (built-in %s): built-in %d nano-USD, file %d\n", d.Key(), d.Entry, d.Ours, d.Theirs)
	}
	return nil
}

// parseTimes reads -at; each time is named by its UTC weekday and hour.
func parseTimes(s string) ([]pricing.CallTime, error) {
	var out []pricing.CallTime
	for _, v := range strings.Split(s, ",") {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("-at: %q is not an RFC 3339 time", v)
		}
		t = t.UTC()
		out = append(out, pricing.CallTime{Name: strings.ToLower(t.Format("Mon-02Jan-15:04")), At: t})
	}
	return out, nil
}
