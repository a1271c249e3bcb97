// Package costapitest starts the real costapi extension for the tests of the
// pipeline components, on a pgtest database, and hands them a host that
// holds it, as the collector would. The calling package's TestMain must call
// pgtest.Main (or pgtest.Run).
package costapitest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/extension/extensiontest"

	"github.com/llmcost/llmcost/extension/costapiextension"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// ID is the extension's component ID, the default "api" of every component.
var ID = component.MustNewID("costapi")

// Host is a component.Host whose only extension is the costapi extension.
type Host struct {
	component.Host
	exts map[component.ID]component.Component
}

// GetExtensions returns the extensions by ID, as the collector's host does.
func (h *Host) GetExtensions() map[component.ID]component.Component { return h.exts }

// Start creates the extension through its factory on a fresh database, on a
// free local port and without the network price sync, starts it and shuts
// it down when the test ends.
func Start(t testing.TB) (*Host, *costapiextension.Extension) {
	t.Helper()
	f := costapiextension.NewFactory()
	cfg := f.CreateDefaultConfig().(*costapiextension.Config)
	cfg.DatabaseURL = configopaque.String(pgtest.NewDatabase(t))
	cfg.HTTP.NetAddr.Endpoint = "127.0.0.1:0"
	cfg.Pricing.SyncURL, cfg.Pricing.GenAIPricesURL = "", ""
	ext, err := f.Create(context.Background(), extensiontest.NewNopSettings(f.Type()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ext.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatalf("starting the costapi extension: %v", err)
	}
	t.Cleanup(func() {
		if err := ext.Shutdown(context.Background()); err != nil {
			t.Errorf("shutting the costapi extension down: %v", err)
		}
	})
	e := ext.(*costapiextension.Extension)
	return &Host{Host: componenttest.NewNopHost(), exts: map[component.ID]component.Component{ID: e}}, e
}

// NewProject creates a user with a project in the extension's store and
// returns the project's ID, for records that must belong to one.
func NewProject(t testing.TB, db *postgres.DB) string {
	t.Helper()
	_, p, err := db.Register(context.Background(),
		postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_test"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// Status sends an unauthenticated request to the extension's server and
// returns the status, to see whether a component's route is served.
func Status(t testing.TB, e *costapiextension.Extension, method, path string) int {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+e.Addr().String()+path, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
