package benchdata

import (
	"os"
	"strings"
)

// LoadAverage is the host's one-minute load average (/proc/loadavg), or
// "unknown": other work on the two cores is the first suspect when a
// ratio is off, so a benchmark says how busy the host was.
func LoadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(raw)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}
