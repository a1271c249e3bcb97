package costapiextension_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/extension/extensiontest"

	"github.com/llmcost/llmcost/extension/costapiextension"
	"github.com/llmcost/llmcost/internal/costapitest"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

func testConfig(t *testing.T) *costapiextension.Config {
	t.Helper()
	cfg := costapiextension.NewFactory().CreateDefaultConfig().(*costapiextension.Config)
	cfg.HTTP.NetAddr.Endpoint = "127.0.0.1:0"
	cfg.Pricing.SyncURL, cfg.Pricing.GenAIPricesURL = "", ""
	return cfg
}

func create(t *testing.T, cfg *costapiextension.Config) *costapiextension.Extension {
	t.Helper()
	f := costapiextension.NewFactory()
	ext, err := f.Create(context.Background(), extensiontest.NewNopSettings(f.Type()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ext.(*costapiextension.Extension)
}

// Create, start, serve, shut down: the store is open while started, and the
// port and the pool are released by Shutdown.
func TestLifecycle(t *testing.T) {
	cfg := testConfig(t)
	cfg.DatabaseURL = configopaque.String(pgtest.NewDatabase(t))
	e := create(t, cfg)
	if err := e.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	if e.DB() == nil || e.Catalogue() == nil {
		t.Fatal("a started extension offers no store or catalogue")
	}
	if got := costapitest.Status(t, e, http.MethodGet, "/v1/health"); got != http.StatusOK {
		t.Fatalf("GET /v1/health: %d", got)
	}
	addr := e.Addr().String()
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e.DB() != nil {
		t.Error("the pool is still offered after Shutdown")
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Shutdown", addr)
	}
}

// The collector may shut down an extension that never started.
func TestShutdownWithoutStart(t *testing.T) {
	if err := create(t, testConfig(t)).Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A port in use is reported before the private PostgreSQL is initialised,
// naming the variable that moves the server elsewhere.
func TestBusyEndpointIsReportedBeforeTheDatabase(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cfg := testConfig(t)
	cfg.HTTP.NetAddr.Endpoint = busy.Addr().String()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	err = create(t, cfg).Start(context.Background(), componenttest.NewNopHost())
	if err == nil || !strings.Contains(err.Error(), "LLMCOST_HTTP_ENDPOINT") || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("want an error naming LLMCOST_HTTP_ENDPOINT, got %v", err)
	}
	if _, err := os.Stat(cfg.DataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the private database was started despite the busy port: %v", err)
	}
}
