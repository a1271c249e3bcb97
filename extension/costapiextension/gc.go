package costapiextension

import (
	"os"
	"runtime/debug"
	"sync"

	"go.uber.org/zap"
)

// defaultGCPercent is the Go garbage collector's target llmcost runs with
// when GOGC is not set. Ingest allocates a few megabytes per 1,000-call
// batch (decoding, the collector's pdata, the insert's arrays), so at Go's
// default of 100 collection takes a visible share of the machine while
// ingest runs flat out (docs/performance.md); 200 halves how often it runs
// for twice the headroom over the live heap (tens of megabytes). Setting GOGC
// (or GOMEMLIMIT with GOGC=off) overrides it.
const defaultGCPercent = 200

var gcOnce sync.Once

// tuneGC applies defaultGCPercent once per process unless GOGC is set.
func tuneGC(log *zap.Logger) {
	gcOnce.Do(func() {
		if _, set := os.LookupEnv("GOGC"); set {
			return
		}
		debug.SetGCPercent(defaultGCPercent)
		log.Debug("GOGC not set: garbage collector target raised", zap.Int("gc_percent", defaultGCPercent))
	})
}
