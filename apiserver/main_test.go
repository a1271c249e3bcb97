package apiserver

import (
	"testing"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// TestMain gives every test of the package a PostgreSQL server; each test
// takes its own database with pgtest.NewDatabase.
func TestMain(m *testing.M) { pgtest.Main(m) }
