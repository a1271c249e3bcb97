package costapiextension_test

import (
	"context"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/costapitest"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// TestReplicaDownAtStart: a replica_url whose server does not answer
// fails neither the start nor a report; the report is the primary's.
func TestReplicaDownAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens there now
	cfg := testConfig(t)
	cfg.DatabaseURL = configopaque.String(pgtest.NewDatabase(t))
	cfg.ReplicaURL = configopaque.String("postgres://llmcost@" + dead + "/llmcost?sslmode=disable")
	e := create(t, cfg)
	if err := e.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatalf("a replica that is down failed the start: %v", err)
	}
	t.Cleanup(func() { _ = e.Shutdown(context.Background()) })
	p := costapitest.NewProject(t, e.DB())
	w := analytics.Window(analytics.Range24h, time.Now())
	t0 := time.Now()
	if _, err := e.DB().ReadWindows(context.Background(), postgres.WindowQuery{ProjectID: p, Dim: "agent",
		Segments: analytics.Decompose(w, analytics.Day)}); err != nil {
		t.Fatalf("a report with the replica down: %v", err)
	}
	replica, primary, ok := e.DB().ReplicaReads()
	if !ok || replica != 0 || primary != 1 {
		t.Fatalf("reads: replica %d, primary %d (configured %v); want the one read on the primary", replica, primary, ok)
	}
	t.Logf("a report with the replica down took %s", time.Since(t0))
}
