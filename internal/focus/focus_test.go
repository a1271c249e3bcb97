package focus

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"regexp"
	"testing"
	"time"
)

// spec is what FOCUS 1.2 requires of each column this dataset writes
// (specification/columns/*.md): its type, whether it may be null, and
// its allowed values where the specification lists them. Every column
// whose feature level is Mandatory is listed; a mandatory column missing
// from Columns fails TestConformsToSpec.
var spec = []struct {
	name      string
	mandatory bool
	kind      string // decimal, string, datetime, keyvalue, unit
	nullable  bool
	allowed   []string
}{
	{"BilledCost", true, "decimal", false, nil},
	{"BillingAccountId", true, "string", false, nil},
	{"BillingAccountName", true, "string", true, nil},
	{"BillingCurrency", true, "string", false, []string{"USD"}},
	{"BillingPeriodEnd", true, "datetime", false, nil},
	{"BillingPeriodStart", true, "datetime", false, nil},
	{"ChargeCategory", true, "string", false, []string{"Usage", "Purchase", "Tax", "Credit", "Adjustment"}},
	{"ChargeClass", true, "string", true, []string{"Correction"}},
	{"ChargeDescription", true, "string", true, nil},
	{"ChargeFrequency", false, "string", false, []string{"One-Time", "Recurring", "Usage-Based"}},
	{"ChargePeriodEnd", true, "datetime", false, nil},
	{"ChargePeriodStart", true, "datetime", false, nil},
	{"ConsumedQuantity", false, "decimal", false, nil}, // not null for Usage rows
	{"ConsumedUnit", false, "unit", false, nil},
	{"ContractedCost", true, "decimal", false, nil},
	{"EffectiveCost", true, "decimal", false, nil},
	{"InvoiceIssuerName", true, "string", false, nil},
	{"ListCost", true, "decimal", false, nil},
	{"PricingCategory", false, "string", false, []string{"Standard", "Dynamic", "Committed", "Other"}},
	{"PricingQuantity", true, "decimal", false, nil}, // not null for Usage rows
	{"PricingUnit", true, "unit", false, nil},
	{"ProviderName", true, "string", false, nil},
	{"PublisherName", true, "string", false, nil},
	{"ServiceCategory", true, "string", false, []string{"AI and Machine Learning"}}, // the one value an LLM call can take
	{"ServiceName", true, "string", false, nil},
	{"ServiceSubcategory", false, "string", false, []string{"Generative AI"}},
	{"SkuId", false, "string", false, nil}, // not null for Usage rows
	{"Tags", false, "keyvalue", true, nil},
}

var (
	decimalRE  = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	dateTimeRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$`)
	unitRE     = regexp.MustCompile(`^([0-9]+ )?[A-Z][A-Za-z]+$`)
)

var day = time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC)

var sample = []Usage{
	{Day: day, Provider: "anthropic", Model: "claude-sonnet-4-5", Billing: BillingAPI, Tags: map[string]string{TagAgent: "coder"},
		Calls: 3, Tokens: 1200, CostNano: 7_500_000, ListNano: 9_000_000},
	{Day: day, Provider: "anthropic", Model: "claude-sonnet-4-5", Billing: BillingSubscription, Tags: map[string]string{TagAgent: "coder"},
		Calls: 2, Tokens: 800, CostNano: 6_000_000, ListNano: 6_000_000},
	{Day: day.AddDate(0, 0, 2), Provider: "", Model: "my-own-model", Billing: BillingAPI, Calls: 1, Tokens: 5, CostNano: 7, ListNano: 7},
}

func TestConformsToSpec(t *testing.T) {
	rows := Build(Account{ID: "0b6f0000-0000-0000-0000-000000000001", Name: "checkout"}, sample)
	var buf bytes.Buffer
	if err := Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header, body := records[0], records[1:]
	index := map[string]int{}
	for i, name := range header {
		index[name] = i
	}
	for _, c := range spec {
		i, ok := index[c.name]
		if !ok {
			if c.mandatory {
				t.Errorf("mandatory column %s is missing", c.name)
			}
			continue
		}
		for n, rec := range body {
			v := rec[i]
			if v == "" {
				if !c.nullable {
					t.Errorf("row %d: %s is null", n, c.name)
				}
				continue
			}
			if c.allowed != nil && !contains(c.allowed, v) {
				t.Errorf("row %d: %s = %q, not one of %v", n, c.name, v, c.allowed)
			}
			switch c.kind {
			case "decimal":
				if !decimalRE.MatchString(v) {
					t.Errorf("row %d: %s = %q is not a plain decimal", n, c.name, v)
				}
			case "datetime":
				if !dateTimeRE.MatchString(v) {
					t.Errorf("row %d: %s = %q is not YYYY-MM-DDTHH:mm:ssZ", n, c.name, v)
				}
			case "unit":
				if !unitRE.MatchString(v) {
					t.Errorf("row %d: %s = %q is not a unit", n, c.name, v)
				}
			case "keyvalue":
				var kv map[string]any
				if err := json.Unmarshal([]byte(v), &kv); err != nil {
					t.Errorf("row %d: %s = %q is not a JSON object", n, c.name, v)
				}
				for k, x := range kv {
					switch x.(type) {
					case map[string]any, []any:
						t.Errorf("row %d: tag %s is an object or array", n, k)
					}
				}
			}
		}
	}
	for _, name := range header {
		if !knownColumn(name) && name[:2] != "x_" {
			t.Errorf("column %s is neither FOCUS's nor x_ prefixed", name)
		}
	}
}

func knownColumn(name string) bool {
	for _, c := range spec {
		if c.name == name {
			return true
		}
	}
	return false
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func TestBuildValues(t *testing.T) {
	rows := Build(Account{ID: "p", Name: "n"}, sample)
	col := func(r Row, name string) string {
		for i, c := range Columns {
			if c == name {
				return r[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	cases := []struct {
		row  int
		want map[string]string
	}{
		{0, map[string]string{"BilledCost": "0.0075", "EffectiveCost": "0.0075", "ListCost": "0.009", "ContractedCost": "0.0075",
			"ChargePeriodStart": "2026-02-27T00:00:00Z", "ChargePeriodEnd": "2026-02-28T00:00:00Z",
			"BillingPeriodStart": "2026-02-01T00:00:00Z", "BillingPeriodEnd": "2026-03-01T00:00:00Z",
			"ProviderName": "Anthropic", "ServiceName": "Anthropic API", "PricingCategory": "Standard",
			"ConsumedQuantity": "1200", "PricingQuantity": "1200", "SkuId": "claude-sonnet-4-5",
			"Tags": `{"llmcost/agent":"coder"}`, "x_BillingType": "api", "x_Calls": "3", "ChargeClass": ""}},
		// A flat plan's calls: their list cost, nothing billed.
		{1, map[string]string{"BilledCost": "0", "EffectiveCost": "0", "ListCost": "0.006", "ContractedCost": "0.006",
			"ServiceName": "Anthropic subscription", "PricingCategory": "Other", "x_BillingType": "subscription"}},
		// A model the catalogue does not know, across the month's end.
		{2, map[string]string{"ProviderName": "Unknown", "BilledCost": "0.000000007", "Tags": "",
			"ChargePeriodStart": "2026-03-01T00:00:00Z", "BillingPeriodStart": "2026-03-01T00:00:00Z",
			"BillingPeriodEnd": "2026-04-01T00:00:00Z"}},
	}
	for _, c := range cases {
		for name, want := range c.want {
			if got := col(rows[c.row], name); got != want {
				t.Errorf("row %d %s = %q, want %q", c.row, name, got, want)
			}
		}
	}
}

func TestProviderName(t *testing.T) {
	for id, want := range map[string]string{"openai": "OpenAI", "xai": "xAI", "": "Unknown", "acme": "Acme"} {
		if got := ProviderName(id); got != want {
			t.Errorf("ProviderName(%q) = %q, want %q", id, got, want)
		}
	}
}
