package apiserver

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/llmcost/llmcost/internal/postgres"
)

// TestMetricsCountReportReadsByServer: with a replica configured,
// /v1/metrics counts the report reads by the server that answered. The
// "replica" here is the primary itself, which is not a standby: it is
// never read, and every report is the primary's.
func TestMetricsCountReportReadsByServer(t *testing.T) {
	e := newEnv(t)
	u := e.register("replica-metrics")
	r := e.must(e.do("GET", "/v1/metrics", u.Key, nil), 200)
	if strings.Contains(r.Raw, "service_report_reads_total") {
		t.Fatalf("report reads counted without a replica:\n%s", r.Raw)
	}
	if err := e.db.OpenReplica(e.db.Pool.Config().ConnString(), postgres.ReplicaOptions{}); err != nil {
		t.Fatal(err)
	}
	e.seedCalls(u.ProjectID, e.clock.Now())
	e.must(e.do("GET", "/v1/analytics/overview?range=24h", u.Key, nil), 200)
	raw := e.must(e.do("GET", "/v1/metrics", u.Key, nil), 200).Raw
	cmd := exec.Command(promtool(t), "check", "metrics")
	cmd.Stdin = strings.NewReader(raw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\n%s", err, out, raw)
	}
	got := samples(t, raw)
	// The overview's read and the metrics' own (counted before it answers).
	if got[`service_report_reads_total{server="replica"}`] != 0 || got[`service_report_reads_total{server="primary"}`] < 2 {
		t.Fatalf("report reads with a replica that is not a standby: %v", got)
	}
}
