package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// TestOpenTurnsJITOff: llmcost's connections run without JIT compilation
// unless the database URL sets jit itself.
func TestOpenTurnsJITOff(t *testing.T) {
	url := pgtest.NewDatabase(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, c := range []struct{ url, want string }{{url, "off"}, {url + sep + "jit=on", "on"}} {
		db, err := postgres.Open(context.Background(), c.url, 2)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = db.Pool.QueryRow(context.Background(), "SHOW jit").Scan(&got)
		db.Close()
		if err != nil || got != c.want {
			t.Errorf("%s: jit %q (%v), want %q", c.url, got, err, c.want)
		}
	}
}
