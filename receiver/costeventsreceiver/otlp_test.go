package costeventsreceiver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/respond"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/internal/semconv"
)

// oneCall is a minimal Claude Code api_request export.
const oneCall = `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}}]},
"scopeLogs":[{"logRecords":[{"timeUnixNano":"1784020331874000000","body":{"stringValue":"claude_code.api_request"},
"attributes":[{"key":"event.name","value":{"stringValue":"api_request"}},{"key":"request_id","value":{"stringValue":"req_1"}},
{"key":"model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"input_tokens","value":{"stringValue":"10"}},
{"key":"output_tokens","value":{"stringValue":"-1"}}]},
{"timeUnixNano":"1784020331874000000","body":{"stringValue":"claude_code.api_request"},
"attributes":[{"key":"event.name","value":{"stringValue":"api_request"}},{"key":"request_id","value":{"stringValue":"req_2"}},
{"key":"model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"input_tokens","value":{"stringValue":"10"}}]}]}]}]}`

func postLogs(t *testing.T, r *costReceiver, body string) *httptest.ResponseRecorder {
	t.Helper()
	p := access.NewPrincipal(access.APIKey, nil)
	p.ProjectID = "0b6f7b1e-4c1a-4f6e-9a53-1d2c3b4a5f60"
	req := httptest.NewRequest("POST", "/v1/otlp/v1/logs", strings.NewReader(body))
	req = req.WithContext(access.NewContext(req.Context(), p))
	w := httptest.NewRecorder()
	respond.Handler(zap.NewNop(), r.otlpLogs).ServeHTTP(w, req)
	return w
}

func TestOTLPLogsReply(t *testing.T) {
	var got plog.Logs
	store := consumerFunc(func(ctx context.Context, ld plog.Logs) error {
		got = ld
		ingest.FromContext(ctx).Fill(1, 0, 0)
		return nil
	})
	w := postLogs(t, newTestReceiver(store), oneCall)
	want := `{"partialSuccess":{"rejectedLogRecords":"1","errorMessage":"1 model-call log record rejected: negative token count (1)"}}`
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != want {
		t.Fatalf("reply %d %s", w.Code, w.Body)
	}
	lr := got.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	ev, err := semconv.GetEvent(lr)
	if err != nil || ev.ProjectID != "0b6f7b1e-4c1a-4f6e-9a53-1d2c3b4a5f60" || ev.Source != "otlp:claude-code" {
		t.Fatalf("canonical record %+v, %v", ev, err)
	}
}

func TestOTLPLogsTransientFailureIs503(t *testing.T) {
	fail := consumerFunc(func(context.Context, plog.Logs) error {
		return consumererror.NewRetryableError(errors.New("connection refused"))
	})
	w := postLogs(t, newTestReceiver(fail), oneCall)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("reply %d %v %s", w.Code, w.Header(), w.Body)
	}
}

func TestOTLPMediaTypes(t *testing.T) {
	for ct, ok := range map[string]bool{
		"": true, "application/json": true, "application/json; charset=utf-8": true, "Application/JSON": true,
		"application/x-protobuf": false, "application/protobuf": false, "text/plain": false, "json": false,
	} {
		if err := otlpMediaType(ct); (err == nil) != ok {
			t.Errorf("%q: %v", ct, err)
		}
	}
}

func TestRejectionSummary(t *testing.T) {
	got := rejectionSummary([]string{"negative token count (a=-1)", "missing or empty model",
		"non-integer token count (b=1.5)", "missing or empty model", "negative token count (c=-2)"})
	want := "5 model-call log records rejected: negative token count (2), missing or empty model (2), non-integer token count (1)"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
