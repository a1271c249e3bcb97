// Package redistest starts a private Redis server for tests: the binary
// of the Debian package redis-server (scripts/ensure-redis installs it for
// make test), on a free local port, without persistence, with a password.
package redistest

import (
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Password is the private server's password.
const Password = "llmcost-test"

// Start runs redis-server until the test ends and returns its URL,
// redis://:Password@127.0.0.1:port/2 (database 2, to exercise SELECT).
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is not installed: run scripts/ensure-redis (or apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--requirepass", Password)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			return "redis://:" + Password + "@127.0.0.1:" + port + "/2"
		}
	}
	t.Fatal("redis-server did not start")
	return ""
}
