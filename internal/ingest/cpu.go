package ingest

import (
	"context"
	"runtime"
	"sync"
)

// CPUGate bounds how many ingest requests do their CPU-bound part at once:
// decoding the body, converting, pricing and judging the calls, up to the
// moment the exporter starts its database write. Go's scheduler does not
// know that a budget-state poll is more urgent than a batch: with every
// processor running a batch's decoding, a poll waits for a preemption
// (about 10 ms) behind them. Leaving one processor to everything else
// keeps the reads' latency in milliseconds while calls pour in; ingest
// loses nothing, as its database writes are serialised behind the work
// pool anyway and the next batch decodes while this one is written.
type CPUGate struct{ slots chan struct{} }

// NewCPUGate admits n requests at once (n < 1: one fewer than GOMAXPROCS,
// at least one).
func NewCPUGate(n int) *CPUGate {
	if n < 1 {
		n = max(1, runtime.GOMAXPROCS(0)-1)
	}
	return &CPUGate{slots: make(chan struct{}, n)}
}

// Enter waits for a slot, or for ctx. The returned leave gives the slot
// back; it may be called more than once.
func (g *CPUGate) Enter(ctx context.Context) (leave func(), err error) {
	select {
	case g.slots <- struct{}{}:
		return sync.OnceFunc(func() { <-g.slots }), nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Size is how many requests the gate admits at once.
func (g *CPUGate) Size() int { return cap(g.slots) }
