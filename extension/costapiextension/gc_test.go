package costapiextension

import (
	"os"
	"runtime/debug"
	"sync"
	"testing"

	"go.uber.org/zap"
)

// TestTuneGC: without GOGC the collector's target becomes 200; with GOGC
// set (whatever its value) it is left as the runtime read it.
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, c := range []struct {
		name string
		set  bool
		want int
	}{{"GOGC unset", false, defaultGCPercent}, {"GOGC set", true, 100}} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOGC", "100") // restored after the test
			if !c.set {
				if err := os.Unsetenv("GOGC"); err != nil {
					t.Fatal(err)
				}
			}
			debug.SetGCPercent(100)
			gcOnce = sync.Once{}
			tuneGC(zap.NewNop())
			if got := debug.SetGCPercent(100); got != c.want {
				t.Errorf("target %d, want %d", got, c.want)
			}
		})
	}
}
