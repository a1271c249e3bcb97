package ratelimit

import (
	"testing"
	"time"
)

func TestFixedWindow(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(3, time.Minute)
	l.Now = func() time.Time { return now }
	for i, want := range []int{2, 1, 0} {
		d := l.allow("k")
		if !d.Allowed || d.Remaining != want || d.Reset != time.Minute {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	if d := l.allow("k"); d.Allowed || d.Remaining != 0 {
		t.Fatalf("4th request allowed: %+v", d)
	}
	if d := l.allow("other"); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("another key shares the bucket: %+v", d)
	}
	now = now.Add(59*time.Second + 500*time.Millisecond)
	if d := l.allow("k"); d.Allowed || d.Reset != time.Second {
		t.Fatalf("reset must be at least one second: %+v", d)
	}
	now = now.Add(time.Second)
	if d := l.allow("k"); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("new window not opened: %+v", d)
	}
}
