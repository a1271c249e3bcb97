package ingest

import (
	"context"
	"errors"
	"os"
	"runtime"
	"syscall"
	"testing"
)

// threadNice is the calling thread's nice value (the raw syscall answers
// 20 − nice).
func threadNice(t *testing.T) int {
	t.Helper()
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

// Do runs its work on a thread at the gate's nice value, leaves the
// caller's thread as it was, hands fn its slot, answers fn's error and
// raises fn's panic in the caller.
func TestDoRunsAtTheGatesPriority(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	base := threadNice(t) // the test may itself run under nice
	g := NewCPUGate(1)
	g.Nice = min(19, base+5)
	var inside int
	var onMain bool
	want := errors.New("fn's")
	err := g.Do(context.Background(), func(leave func()) error {
		inside = threadNice(t)
		onMain = syscall.Gettid() == os.Getpid()
		leave()
		// The slot is back: another request may enter while this one writes.
		other, err := g.Enter(context.Background())
		if err != nil {
			return err
		}
		other()
		return want
	})
	if !errors.Is(err, want) {
		t.Fatalf("Do answered %v, want fn's error", err)
	}
	// The process's main thread keeps its priority (it is the one tools
	// show for the process); any other runs the work at the gate's.
	if wantInside := map[bool]int{false: g.Nice, true: base}[onMain]; inside != wantInside {
		t.Errorf("work ran at nice %d (main thread %v), want %d", inside, onMain, wantInside)
	}
	mainNice, err := syscall.Getpriority(syscall.PRIO_PROCESS, os.Getpid())
	if err != nil || 20-mainNice != base {
		t.Errorf("main thread at nice %d after Do (%v), want %d", 20-mainNice, err, base)
	}
	if after := threadNice(t); after != base {
		t.Errorf("caller's thread at nice %d after Do, want %d", after, base)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want fn's panic", r)
			}
		}()
		_ = g.Do(context.Background(), func(func()) error { panic("boom") })
	}()
	// The panicking call gave its slot back.
	if err := g.Do(context.Background(), func(func()) error { return nil }); err != nil {
		t.Fatal(err)
	}
}
