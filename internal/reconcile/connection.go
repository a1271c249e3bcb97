// Package reconcile compares a provider's own account of a project's
// calls (its usage and cost reports) with llmcost's, day by day and model
// by model, and names the cause of every gap. It is pure: the store reads
// both sides, this package matches and classifies them.
package reconcile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/providers"
)

// Connection settings' bounds and defaults.
const (
	DefaultBackfillDays = 30
	MaxBackfillDays     = 90
	DefaultToleranceBP  = 200 // 2 %
	MaxScopeIDs         = 100
	maxIDLen            = 128
	minKeyLen           = 20
	maxKeyLen           = 512
)

// KnownProvider reports whether p can be connected.
func KnownProvider(p string) bool { return p == providers.Anthropic || p == providers.OpenAI }

// adminPrefix is how each provider's admin keys begin; a regular API key
// cannot read the usage and cost reports.
var adminPrefix = map[string]string{providers.Anthropic: "sk-ant-admin", providers.OpenAI: "sk-admin-"}

// ConnectionInput is a connection as a client sent it.
type ConnectionInput struct {
	Provider         string
	AdminKey         string
	HasKey           bool
	WorkspaceIDs     []string
	ProjectIDs       []string
	APIKeyIDs        []string
	BackfillDays     *int
	TolerancePercent *string
}

// ValidConnection is a checked input with its defaults applied.
type ValidConnection struct {
	WorkspaceIDs, ProjectIDs, APIKeyIDs []string
	BackfillDays                        int
	ToleranceBP                         int
}

// Validate checks every field, naming the first that breaks a rule.
func (in ConnectionInput) Validate() (ValidConnection, error) {
	out := ValidConnection{BackfillDays: DefaultBackfillDays, ToleranceBP: DefaultToleranceBP}
	if in.HasKey {
		if err := checkKey(in.Provider, in.AdminKey); err != nil {
			return out, err
		}
	}
	if len(in.WorkspaceIDs) > 0 && in.Provider != providers.Anthropic {
		return out, apierr.Field("workspace_ids", "is for anthropic connections; an openai connection is narrowed by project_ids")
	}
	if len(in.ProjectIDs) > 0 && in.Provider != providers.OpenAI {
		return out, apierr.Field("project_ids", "is for openai connections; an anthropic connection is narrowed by workspace_ids")
	}
	var err error
	if out.WorkspaceIDs, err = checkIDs("workspace_ids", in.WorkspaceIDs); err != nil {
		return out, err
	}
	if out.ProjectIDs, err = checkIDs("project_ids", in.ProjectIDs); err != nil {
		return out, err
	}
	if out.APIKeyIDs, err = checkIDs("api_key_ids", in.APIKeyIDs); err != nil {
		return out, err
	}
	if in.BackfillDays != nil {
		if d := *in.BackfillDays; d < 1 || d > MaxBackfillDays {
			return out, apierr.Field("backfill_days", fmt.Sprintf("must be an integer from 1 to %d", MaxBackfillDays))
		}
		out.BackfillDays = *in.BackfillDays
	}
	if in.TolerancePercent != nil {
		bp, ok := ParseBasisPoints(*in.TolerancePercent)
		if !ok || bp > 10_000 {
			return out, apierr.Field("tolerance_percent", "must be a number from 0 to 100 with at most two decimals")
		}
		out.ToleranceBP = bp
	}
	return out, nil
}

func checkKey(provider, key string) error {
	prefix := adminPrefix[provider]
	if len(key) < minKeyLen || len(key) > maxKeyLen {
		return apierr.Field("admin_key", fmt.Sprintf("must be %d to %d characters", minKeyLen, maxKeyLen))
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] > '~' {
			return apierr.Field("admin_key", "must be printable ASCII without spaces")
		}
	}
	if !strings.HasPrefix(key, prefix) {
		return apierr.Field("admin_key", "must be a "+provider+" admin key (it begins "+prefix+
			"); a regular API key cannot read the usage and cost reports")
	}
	return nil
}

// checkIDs checks a scope list: at most MaxScopeIDs distinct ids of
// letters, digits, '_' and '-'. The result is sorted, so a scope sent in
// another order is the same scope.
func checkIDs(field string, ids []string) ([]string, error) {
	if len(ids) > MaxScopeIDs {
		return nil, apierr.Field(field, fmt.Sprintf("must hold at most %d ids", MaxScopeIDs))
	}
	out := slices.Clone(ids)
	for i, id := range ids {
		if id == "" || len(id) > maxIDLen || strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return nil, apierr.Field(fmt.Sprintf("%s[%d]", field, i),
				fmt.Sprintf("must be 1 to %d letters, digits, '_' or '-'", maxIDLen))
		}
	}
	slices.Sort(out)
	if len(slices.Compact(slices.Clone(out))) != len(out) {
		return nil, apierr.Field(field, "repeats an id: ids must be unique")
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// KeyHint is what reads show of a key: its last four characters.
func KeyHint(key string) string {
	if len(key) < 4 {
		return ""
	}
	return key[len(key)-4:]
}

// KeyAAD binds a sealed key to its connection: copied into another
// project's row, it does not open.
func KeyAAD(projectID, provider string) []byte { return []byte(projectID + "/" + provider) }

// ParseBasisPoints reads a percentage with at most two decimals ("2",
// "0.5", "12.25") as hundredths of a percent.
func ParseBasisPoints(s string) (int, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 2 || len(whole) > 5 {
		return 0, false
	}
	w, err1 := strconv.Atoi(whole)
	f := 0
	var err2 error
	if frac != "" {
		f, err2 = strconv.Atoi(frac + strings.Repeat("0", 2-len(frac)))
	}
	if err1 != nil || err2 != nil || w < 0 || strings.ContainsAny(whole+frac, "+-") {
		return 0, false
	}
	return w*100 + f, true
}

// FormatBasisPoints writes hundredths of a percent as a percentage.
func FormatBasisPoints(bp int) string {
	s := strconv.Itoa(bp/100) + "." + fmt.Sprintf("%02d", bp%100)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}
