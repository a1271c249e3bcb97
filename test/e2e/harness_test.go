// Package e2e drives the built distribution as a client would: it builds
// cmd/llmcost, starts it with collector-config.yaml against a real
// PostgreSQL, and talks to it over HTTP.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

var binary string

// TestMain builds the distribution into a temporary directory and removes
// it after the tests: pgtest.Run, unlike Main, returns before the exit, so
// the 50 MB binary is not left behind in /tmp.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "llmcost-e2e-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "llmcost")
	build := exec.Command("go", "build", "-o", binary, "./cmd/llmcost")
	build.Dir = repoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	code := 1
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the distribution failed: %v\n%s", err, out)
	} else {
		code = pgtest.Run(m)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}

// service is one running llmcost process.
type service struct {
	URL    string
	dbURL  string
	cmd    *exec.Cmd
	stderr *syncBuffer
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start runs the binary with collector-config.yaml and env, and waits for it
// to answer /v1/health. env overrides the defaults; a database URL is taken
// from a fresh test database unless env sets LLMCOST_DATA_DIR.
func start(t testing.TB, env map[string]string) *service {
	t.Helper()
	return startConfig(t, filepath.Join(repoRoot(), "collector-config.yaml"), env)
}

// startConfig is start with another collector configuration.
func startConfig(t testing.TB, config string, env map[string]string) *service {
	t.Helper()
	addr := freePort(t)
	vars := map[string]string{"LLMCOST_HTTP_ENDPOINT": addr, "LLMCOST_RATE_LIMIT": "100000"}
	vars["LLMCOST_PRICING_SYNC_URL"] = "" // hermetic: built-in prices unless a test serves a file
	vars["LLMCOST_PRICING_GENAI_PRICES_URL"] = ""
	if _, private := env["LLMCOST_DATA_DIR"]; !private {
		vars["LLMCOST_DATABASE_URL"] = pgtest.NewDatabase(t)
	}
	for k, v := range env {
		vars[k] = v
	}
	cmd := exec.Command(binary, "--config", config)
	cmd.Env = os.Environ()
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	s := &service{URL: "http://" + addr, dbURL: vars["LLMCOST_DATABASE_URL"], cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL + "/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("llmcost did not become healthy:\n%s", s.stderr.String())
	return nil
}

// stop sends SIGTERM and waits for a clean exit.
func (s *service) stop(t testing.TB) {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("llmcost exited with %v:\n%s", err, s.stderr.String())
		}
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Errorf("llmcost did not stop within 30s")
	}
}

// response is a decoded reply.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

var client = &http.Client{Timeout: 60 * time.Second}

// call sends a JSON request; body may be nil, a []byte, or a value to marshal.
func (s *service) call(t testing.TB, method, path, bearer string, body any, headers ...string) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 && raw[0] == '{' {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		_ = d.Decode(&out.Body)
	}
	return out
}

// must fails the test unless the reply has the wanted status.
func (r response) must(t testing.TB, status int) response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	return r
}

// account registers a fresh user and returns its access token and the
// default project's id and API key.
func (s *service) account(t testing.TB) (token, projectID, key string) {
	t.Helper()
	r := decode[wire.Registered](t, s.call(t, "POST", "/v1/auth/register", "", map[string]any{
		"email": fmt.Sprintf("u%d@example.com", time.Now().UnixNano()), "password": "correct horse battery",
		"name": "Test", "accept_terms": true, "accept_privacy": true,
		"terms_version": "2026-01-01", "privacy_version": "2026-01-01",
	}).must(t, http.StatusCreated))
	return r.AccessToken, r.DefaultProject.ID, r.DefaultProject.APIKey
}

// decode is a reply's JSON as the API's own record, as the dashboard reads
// it.
func decode[T any](t testing.TB, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Raw, &v); err != nil {
		t.Fatalf("decode %T: %v: %s", v, err, r.Raw)
	}
	return v
}

func num(t testing.TB, v any) float64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	f, _ := n.Float64()
	return f
}
