package costapiextension_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"

	"github.com/llmcost/llmcost/internal/costapitest"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// The started extension merges stored calls into the rollups by itself,
// every rollup_merge_interval.
func TestMergerRunsWhileStarted(t *testing.T) {
	cfg := testConfig(t)
	cfg.DatabaseURL = configopaque.String(pgtest.NewDatabase(t))
	cfg.RollupMergeInterval = 20 * time.Millisecond
	e := create(t, cfg)
	ctx := context.Background()
	if err := e.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown(ctx)
	db := e.DB()
	p := costapitest.NewProject(t, db)
	if _, err := db.Write(ctx, []event.Event{{ProjectID: p, EventID: "e1", Timestamp: time.Now().UTC(),
		AgentName: "a", Model: "m", InputTokens: 10, TotalTokens: 10, CostNano: 7, Billing: "api", Source: "batch"}}, nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n, err := db.TailEvents(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the call was not merged within 10 s")
		}
	}
	var cost int64
	if err := db.Pool.QueryRow(ctx, `SELECT cost_nano FROM rollup_day WHERE project_id = $1 AND dim = 'agent'`, p).
		Scan(&cost); err != nil || cost != 7 {
		t.Fatalf("merged daily agent row: cost %d, %v", cost, err)
	}
}
