package reports

import (
	"context"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/reconcile"
)

// Reconciliation is the comparison of the providers' reports with
// llmcost's calls over [From, To) (docs/reconciliation.md): per day and
// model, the summary, and the connections whose sync state the summary
// shows.
type Reconciliation struct {
	From, To    time.Time
	Rows        []reconcile.Row
	Summary     reconcile.Summary
	Connections []postgres.Connection
}

// Reconciliation reads the project's connections, the providers' fetched
// reports and llmcost's calls per day over [from, to), whole UTC days, and
// matches them.
func (rs *Reports) Reconciliation(ctx context.Context, project string, from, to time.Time) (Reconciliation, error) {
	out := Reconciliation{From: from, To: to}
	var err error
	if out.Connections, err = rs.DB.Connections(ctx, project); err != nil {
		return Reconciliation{}, err
	}
	fetched, err := rs.DB.ProviderReports(ctx, project, from, to)
	if err != nil {
		return Reconciliation{}, err
	}
	calls, err := rs.DB.CallDays(ctx, project, from, to)
	if err != nil {
		return Reconciliation{}, err
	}
	d := reconcile.Data{From: from, To: to, Days: fetched.Days, Usage: fetched.Usage, Costs: fetched.Costs, Calls: calls,
		Catalogue: rs.Catalogue.Load(), SettleAfter: postgres.SettleAfter}
	for _, c := range out.Connections {
		d.Connections = append(d.Connections, reconcile.Connection{Provider: c.Provider, ToleranceBP: c.ToleranceBP})
	}
	out.Rows, out.Summary = reconcile.Build(d)
	return out, nil
}
