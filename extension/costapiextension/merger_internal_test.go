package costapiextension

import (
	"testing"
	"time"
)

// A merger that is behind takes marks at once; one that keeps pace lets
// them settle for a second.
func TestRunSettle(t *testing.T) {
	for _, c := range []struct {
		busy bool
		want time.Duration
	}{{false, time.Second}, {true, 0}} {
		if got := runSettle(c.busy); got != c.want {
			t.Errorf("runSettle(busy %v) = %v, want %v", c.busy, got, c.want)
		}
	}
}
