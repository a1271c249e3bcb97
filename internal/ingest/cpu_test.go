package ingest

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCPUGateAdmitsItsSizeAndLeavesOnce(t *testing.T) {
	g := NewCPUGate(2)
	if g.Size() != 2 {
		t.Fatalf("size %d, want 2", g.Size())
	}
	a, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Full: a third waits until its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third Enter: %v, want the deadline", err)
	}
	// Leaving twice frees one slot, not two.
	a()
	a()
	c, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if _, err := g.Enter(ctx2); err == nil {
		t.Fatal("a slot left twice was given back twice")
	}
	b()
	c()
}

func TestCPUGateDefaultLeavesAProcessor(t *testing.T) {
	if n := NewCPUGate(0).Size(); n < 1 {
		t.Fatalf("default size %d, want at least 1", n)
	}
}

func TestResultWritingCallsItsHook(t *testing.T) {
	var r Result
	r.Writing() // no hook: nothing happens
	calls := 0
	r.OnWriting(func() { calls++ })
	r.Writing()
	if calls != 1 {
		t.Fatalf("hook called %d times, want 1", calls)
	}
}
