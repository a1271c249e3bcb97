package costeventsreceiver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/llmcost/llmcost/internal/costapitest"
)

func createLogsReceiver(t *testing.T) receiver.Logs {
	t.Helper()
	f := NewFactory()
	r, err := f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), f.CreateDefaultConfig(), consumertest.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Created by its factory and started with a host holding the real costapi
// extension, the receiver serves its ingest route (which asks for an API
// key); Shutdown succeeds, also a second time.
func TestLifecycle(t *testing.T) {
	host, ext := costapitest.Start(t)
	r := createLogsReceiver(t)
	if err := r.Start(context.Background(), host); err != nil {
		t.Fatal(err)
	}
	if got := costapitest.Status(t, ext, http.MethodPost, "/v1/events/batch"); got != http.StatusUnauthorized {
		t.Errorf("POST /v1/events/batch without a key while started: %d, want 401", got)
	}
	for range 2 {
		if err := r.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStartWithoutTheExtensionNamesTheSetting(t *testing.T) {
	err := createLogsReceiver(t).Start(context.Background(), componenttest.NewNopHost())
	if err == nil || !strings.Contains(err.Error(), `api: extension "costapi" is not configured`) {
		t.Fatalf("got %v", err)
	}
}
