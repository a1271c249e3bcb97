// Package focus turns a project's daily LLM usage into a cost-and-usage
// dataset in the FinOps Foundation's FOCUS format (version 1.2), the
// columns a FinOps tool or a finance team loads next to its cloud bills.
// It is pure: the store sums the calls, this package names and fills the
// columns (docs/exports.md lists each column and its value).
package focus

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

// Version is the FOCUS version the rows follow.
const Version = "1.2"

// Billing types of a call, as the events store them.
const (
	BillingAPI          = "api"
	BillingSubscription = "subscription"
)

// Usage is one day's calls of one model under one billing type and one
// tag set: the grain of a FOCUS row.
type Usage struct {
	Day      time.Time // the UTC day's midnight
	Provider string    // the catalogue's provider id ("anthropic"); "" when the model is unknown
	Model    string
	Billing  string            // BillingAPI or BillingSubscription
	Tags     map[string]string // already prefixed (TagAgent)
	Calls    int64
	Tokens   int64
	// CostNano is what the calls cost as llmcost priced them (or as the
	// client stated): what the provider charges for API calls.
	CostNano int64
	// ListNano is the same calls at the catalogue's published prices
	// (CostNano where the catalogue does not know the model).
	ListNano int64
}

// TagAgent is the tag key of the agent that made the calls. llmcost's own
// tags carry the llmcost/ prefix, as FOCUS asks of provider-defined tags.
const TagAgent = "llmcost/agent"

// Account is the billing account the rows are charged to: the project.
type Account struct {
	ID   string
	Name string
}

// Columns are the dataset's columns in the order written: FOCUS's
// mandatory columns, the conditional and recommended ones llmcost can
// fill, in the specification's alphabetical order, then llmcost's own
// (x_ prefixed, as the specification requires of custom columns).
var Columns = []string{
	"BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
	"BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass",
	"ChargeDescription", "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart",
	"ConsumedQuantity", "ConsumedUnit", "ContractedCost", "EffectiveCost",
	"InvoiceIssuerName", "ListCost", "PricingCategory", "PricingQuantity",
	"PricingUnit", "ProviderName", "PublisherName", "ServiceCategory",
	"ServiceName", "ServiceSubcategory", "SkuId", "Tags",
	"x_BillingType", "x_Calls",
}

// Row is one FOCUS row, every value as the CSV cell it becomes ("" is
// null), in the order of Columns.
type Row []string

// dateTime is FOCUS's Date/Time format: ISO 8601 extended, UTC, seconds.
const dateTime = "2006-01-02T15:04:05Z"

// Build makes the rows of usage, in a stable order (day, provider, model,
// billing, tags). Flat-plan calls (billing subscription) are listed with
// their list and contracted cost and a billed and effective cost of 0:
// the subscription's fee is paid elsewhere, and no one call adds to it.
func Build(acct Account, usage []Usage) []Row {
	sorted := append([]Usage(nil), usage...)
	sort.SliceStable(sorted, func(i, j int) bool { return less(sorted[i], sorted[j]) })
	out := make([]Row, 0, len(sorted))
	for _, u := range sorted {
		out = append(out, build(acct, u))
	}
	return out
}

func build(acct Account, u Usage) Row {
	day := u.Day.UTC().Truncate(24 * time.Hour)
	month := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
	provider := ProviderName(u.Provider)
	flat := u.Billing == BillingSubscription
	billed, pricingCategory, service, billing := u.CostNano, "Standard", provider+" API", "API, metered"
	if flat {
		billed, pricingCategory, service, billing = 0, "Other", provider+" subscription", "flat plan, covered by a subscription"
	}
	row := Row{
		money(billed), acct.ID, acct.Name, "USD",
		month.AddDate(0, 1, 0).Format(dateTime), month.Format(dateTime), "Usage", "",
		u.Model + " tokens (" + billing + "): " + strconv.FormatInt(u.Calls, 10) + " calls",
		"Usage-Based", day.AddDate(0, 0, 1).Format(dateTime), day.Format(dateTime),
		strconv.FormatInt(u.Tokens, 10), "Tokens", money(u.CostNano), money(billed),
		provider, money(u.ListNano), pricingCategory, strconv.FormatInt(u.Tokens, 10),
		"Tokens", provider, provider, "AI and Machine Learning",
		service, "Generative AI", u.Model, tags(u.Tags),
		u.Billing, strconv.FormatInt(u.Calls, 10),
	}
	return row
}

// money is nano-USD as an exact decimal (FOCUS's Numeric Format: no
// exponent, no currency sign, a point).
func money(nano int64) string { return pricing.FormatUSD(nano) }

// tags is the Key-Value Format: a JSON object of string values; null
// when there are none.
func tags(t map[string]string) string {
	if len(t) == 0 {
		return ""
	}
	b, _ := json.Marshal(t) // a map of strings always encodes; keys sorted
	return string(b)
}

var providerNames = map[string]string{
	"anthropic": "Anthropic", "openai": "OpenAI", "google": "Google", "mistral": "Mistral AI",
	"xai": "xAI", "deepseek": "DeepSeek",
}

// ProviderName is the display name of a catalogue provider id, as the
// provider writes its own name; "Unknown" when the catalogue does not know
// the model (FOCUS allows no null provider).
func ProviderName(id string) string {
	if n, ok := providerNames[strings.ToLower(id)]; ok {
		return n
	}
	if id == "" {
		return "Unknown"
	}
	return strings.ToUpper(id[:1]) + id[1:]
}

func less(a, b Usage) bool {
	if !a.Day.Equal(b.Day) {
		return a.Day.Before(b.Day)
	}
	for _, c := range [][2]string{{a.Provider, b.Provider}, {a.Model, b.Model}, {a.Billing, b.Billing}, {tags(a.Tags), tags(b.Tags)}} {
		if c[0] != c[1] {
			return c[0] < c[1]
		}
	}
	return false
}

// Write writes the header and rows as CSV (RFC 4180).
func Write(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true // RFC 4180's line end
	if err := cw.Write(Columns); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
