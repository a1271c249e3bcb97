package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/postgres"
)

// llmcost is one running bin/llmcost serving a database.
type llmcost struct {
	URL    string
	cmd    *exec.Cmd
	output *bytes.Buffer
	client *http.Client
}

// envServerProcs, when set, is the server's GOMAXPROCS (its Go
// processors), to measure how reads' latency under a saturating stream
// depends on how many goroutines can run at once against the cores.
const envServerProcs = "LLMCOST_BENCH_SERVER_GOMAXPROCS"

// startLLMCost runs bin/llmcost (built by make build) with the repository's
// collector-config.yaml against dbURL, and waits until it is healthy.
func startLLMCost(b *testing.B, dbURL string) *llmcost {
	bin := filepath.Join(repoRoot(), "bin", "llmcost")
	if _, err := os.Stat(bin); err != nil {
		b.Fatalf("%s is missing: run make build (make bench-analytics does)", bin)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--config", filepath.Join(repoRoot(), "collector-config.yaml"))
	cmd.Env = append(os.Environ(), "LLMCOST_HTTP_ENDPOINT="+addr, "LLMCOST_DATABASE_URL="+dbURL,
		"LLMCOST_RATE_LIMIT=100000000", "LLMCOST_PRICING_SYNC_URL=", "LLMCOST_LOG_LEVEL=warn")
	if n := os.Getenv(envServerProcs); n != "" {
		// The server's alone: the benchmark's own scheduler stays as it is.
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+n)
	}
	s := &llmcost{URL: "http://" + addr, cmd: cmd, output: &bytes.Buffer{},
		client: &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	cmd.Stdout, cmd.Stderr = s.output, s.output
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.stop)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if status, _, err := s.do("GET", "/v1/health", "", nil); err == nil && status == http.StatusOK {
			return s
		}
	}
	b.Fatalf("llmcost did not become healthy:\n%s", s.output)
	return nil
}

func (s *llmcost) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// do sends one request and reads the whole answer.
func (s *llmcost) do(method, path, bearer string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(context.Background(), method, s.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// register creates an account over HTTP and returns its default project's
// id and API key.
func (s *llmcost) register(b *testing.B) (projectID, key string) {
	projectID, key, _ = s.registerAccount(b)
	return projectID, key
}

// registerAccount is register that also returns the account's access token,
// for what an API key may not do (setting a budget).
func (s *llmcost) registerAccount(b *testing.B) (projectID, key, token string) {
	body, _ := json.Marshal(map[string]any{
		"email": fmt.Sprintf("bench%d@example.com", time.Now().UnixNano()), "password": "correct horse battery",
		"name": "Bench", "accept_terms": true, "accept_privacy": true,
		"terms_version": "2026-01-01", "privacy_version": "2026-01-01",
	})
	status, raw, err := s.do("POST", "/v1/auth/register", "", body)
	if err != nil || status != http.StatusCreated {
		b.Fatalf("register: %d %v %s", status, err, raw)
	}
	var r struct {
		AccessToken    string `json:"access_token"`
		DefaultProject struct {
			ID     string `json:"id"`
			APIKey string `json:"api_key"`
		} `json:"default_project"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		b.Fatal(err)
	}
	return r.DefaultProject.ID, r.DefaultProject.APIKey, r.AccessToken
}

// rotateKey gives the seeded project a fresh API key for this run.
func rotateKey(b *testing.B, db *postgres.DB, projectID string) string {
	key := authn.NewAPIKey()
	if _, err := db.RotateKey(context.Background(), projectID, authn.Hash(key), authn.KeyPrefix(key), time.Now()); err != nil {
		b.Fatal(err)
	}
	return key
}

// withDatabase returns url with its database replaced by name.
func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + strings.TrimPrefix(name, "/")
	return u.String()
}
