package ratelimit

import (
	"testing"
	"time"
)

func TestSlidingWindowCannotBeStraddled(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := NewSliding(3, time.Hour)
	l.Now = func() time.Time { return now }
	for i := 0; i < 3; i++ {
		if ok, _ := l.Allow("a@example.com"); !ok {
			t.Fatalf("event %d refused", i)
		}
		now = now.Add(10 * time.Minute)
	}
	// 30 minutes after the first: still three inside the hour.
	ok, retry := l.Allow("a@example.com")
	if ok || retry != 30*time.Minute {
		t.Fatalf("4th within the hour: ok=%v retry=%s", ok, retry)
	}
	if ok, _ := l.Allow("b@example.com"); !ok {
		t.Fatal("another key shares the count")
	}
	// The first event leaves the window; one slot opens, not three.
	now = now.Add(30 * time.Minute)
	if ok, _ := l.Allow("a@example.com"); !ok {
		t.Fatal("slot not freed after the oldest event left the window")
	}
	if ok, retry := l.Allow("a@example.com"); ok || retry != 10*time.Minute {
		t.Fatalf("second event after one slot freed: ok=%v retry=%s", ok, retry)
	}
}
