package costapiextension

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/config/configopaque"
)

func TestDatabasePoolerSettings(t *testing.T) {
	for _, c := range []struct {
		pooler, url, direct string
		refused             string // a part of the error; empty: valid
	}{
		{"", "postgres://db", "", ""},
		{PoolerNone, "", "", ""},
		{PoolerTransaction, "postgres://bouncer:6432/db", "", ""},
		{PoolerTransaction, "postgres://bouncer:6432/db", "postgres://db:5432/db", ""},
		{"session", "postgres://db", "", "database_pooler: must be none or transaction"},
		{PoolerTransaction, "", "", "database_pooler: needs database_url"},
		{PoolerNone, "postgres://db", "postgres://db", "database_direct_url: only with database_pooler: transaction"},
	} {
		cfg := createDefaultConfig().(*Config)
		cfg.DatabasePooler, cfg.DatabaseURL, cfg.DatabaseDirectURL = c.pooler, configopaque.String(c.url), configopaque.String(c.direct)
		err := cfg.Validate()
		if (err == nil) != (c.refused == "") || (err != nil && !strings.Contains(err.Error(), c.refused)) {
			t.Errorf("pooler %q url %q direct %q: %v, want %q", c.pooler, c.url, c.direct, err, c.refused)
		}
	}
}
