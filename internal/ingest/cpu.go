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
//
// The operating system does not know it either: the work admitted runs on
// an OS thread of its own whose nice value is Nice (Linux; 0 leaves it),
// so a report's or a poll's thread, and the database processes serving
// them, get a core before a batch's decoding does.
type CPUGate struct {
	slots chan struct{}
	// Nice is the nice value of the threads Do runs work on (0: the
	// process's own).
	Nice int
}

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

// Do runs fn in a slot of the gate, on an OS thread of its own with the
// gate's Nice, and answers fn's error; fn gets the slot's leave to give
// it back early (when its database write starts). The thread ends with
// fn, so its priority never reaches other work. A panic in fn is raised
// again in the caller.
func (g *CPUGate) Do(ctx context.Context, fn func(leave func()) error) error {
	leave, err := g.Enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	if g.Nice == 0 {
		return fn(leave)
	}
	done := make(chan struct{})
	var panicked any
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		// Left locked once reniced: the thread exits with this goroutine
		// instead of going back to the runtime with its lowered priority.
		runtime.LockOSThread()
		if !niceThread(g.Nice) {
			defer runtime.UnlockOSThread()
		}
		err = fn(leave)
	}()
	<-done
	if panicked != nil {
		panic(panicked)
	}
	return err
}
