package costprocessor

import (
	"testing"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
