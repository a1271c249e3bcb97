// Package reports is the I/O orchestration of the larger reports: which
// window and which rollup grain each read uses, which store queries run
// side by side and how their sections combine. It calls the store
// (internal/postgres) and the pure packages (analytics, runs, agentview,
// guardrail, reconcile) and returns domain values; the HTTP handlers parse
// a request, call one method here and map the result to the API's records
// (apiserver/wire), which this package never sees. Errors are the store's
// translated ones or apierr errors; their statuses are decided above.
package reports

import (
	"sync/atomic"
	"time"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Reports reads the reports of one deployment. Its zero value is not
// usable: DB, Now and Catalogue are required.
type Reports struct {
	DB *postgres.DB
	// Now is the clock every window ends at; tests move it instead of
	// sleeping.
	Now func() time.Time
	// Catalogue is the price catalogue in force, loaded once per report
	// so one answer is priced by one catalogue even while a sync swaps it.
	Catalogue *atomic.Pointer[pricing.Catalogue]
}
