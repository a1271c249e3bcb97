package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/providers/providerstest"
	"github.com/llmcost/llmcost/internal/webhook"
)

// A month drifting past the tolerance on its final days alerts once: one
// notification per owner and admin, one signed delivery, however many
// syncs see it.
func TestDriftAlertsOncePerMonth(t *testing.T) {
	f := newSyncFixture(t)
	ctx := context.Background()
	var queued []webhook.Envelope
	f.db.Enqueue = func(_ context.Context, _ pgx.Tx, envs []webhook.Envelope) error {
		queued = append(queued, envs...)
		return nil
	}
	if err := f.db.PutWebhook(ctx, f.project, "https://hooks.example.com/llmcost", "secret-0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	day := providers.Day(f.now).AddDate(0, 0, -3) // final by now; llmcost saw none of its calls
	f.oai.SetData([]providerstest.OpenAIUsage{{Day: day, Model: "gpt-4o", Input: 1_000_000, Output: 1_000, Requests: 9}},
		[]providerstest.OpenAICost{{Day: day, LineItem: "gpt-4o, input", Nano: 2_500_000_000}})
	f.connect(t, providers.OpenAI, syncOAIKey, 7)
	for range 2 {
		if _, err := f.sync.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		f.now = f.now.Add(2 * time.Hour)
	}
	var notes int
	if err := f.db.Pool.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE project_id = $1 AND type = $2`,
		f.project, webhook.TypeReconciliationDrift).Scan(&notes); err != nil {
		t.Fatal(err)
	}
	if notes != 1 || len(queued) != 1 || queued[0].Type != webhook.TypeReconciliationDrift {
		t.Fatalf("%d notifications, %d deliveries %+v; want one of each", notes, len(queued), queued)
	}
}
