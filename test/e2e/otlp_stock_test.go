package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// stockOTLP sends OTLP logs exports to the stock otlp receiver
// (go.opentelemetry.io/collector/receiver/otlpreceiver) of a running llmcost.
type stockOTLP struct {
	httpURL string
	grpc    plogotlp.GRPCClient
}

// transports are the ways an agent's exporter reaches the stock receiver.
var transports = []string{"http/json", "http/json+gzip", "grpc", "http/protobuf"}

// send delivers a JSON fixture body over transport; the receiver must accept it.
func (o *stockOTLP) send(t *testing.T, name, transport string, body []byte) {
	t.Helper()
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalJSON(body); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	headers := map[string]string{"Content-Type": "application/json"}
	switch transport {
	case "grpc":
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := o.grpc.Export(ctx, req); err != nil {
			t.Fatalf("%s over %s: %v", name, transport, err)
		}
		return
	case "http/protobuf":
		var err error
		if body, err = req.MarshalProto(); err != nil {
			t.Fatal(err)
		}
		headers["Content-Type"] = "application/x-protobuf"
	case "http/json+gzip":
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		_ = zw.Close()
		body = buf.Bytes()
		headers["Content-Encoding"] = "gzip"
	}
	s := &service{URL: o.httpURL}
	s.postOTLP(t, "/v1/logs", "", body, headers).must(t, http.StatusOK)
}

// waitListening waits for the receiver's ports: llmcost answers /v1/health
// once its extension runs, before the pipelines' receivers have started.
func waitListening(t *testing.T, addrs ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, addr := range addrs {
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("nothing listens on %s: %v", addr, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// startStock runs llmcost with testdata/stock-otlp-config.yaml, the otlp
// receiver on free ports, and returns it with a client for that receiver.
func startStock(t *testing.T, env map[string]string) (*service, *stockOTLP) {
	t.Helper()
	grpcAddr, httpAddr := freePort(t), freePort(t)
	env["LLMCOST_OTLP_GRPC_ENDPOINT"], env["LLMCOST_OTLP_HTTP_ENDPOINT"] = grpcAddr, httpAddr
	s := startConfig(t, filepath.Join("testdata", "stock-otlp-config.yaml"), env)
	waitListening(t, grpcAddr, httpAddr)
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return s, &stockOTLP{httpURL: "http://" + httpAddr, grpc: plogotlp.NewGRPCClient(conn)}
}

// An ops team's collector with the stock otlp receiver in front of our cost
// processor and postgres exporter (testdata/stock-otlp-config.yaml, the
// configuration docs/agents.md shows) stores the same events as our
// endpoint, whatever the transport, and a re-sent export stores nothing new.
func TestStockOTLPReceiverPipelineStoresTheSameEvents(t *testing.T) {
	// The agents' project must exist before the config naming it is loaded.
	url := pgtest.NewDatabase(t)
	setup := start(t, map[string]string{"LLMCOST_DATABASE_URL": url})
	_, stockProject, stockKey := setup.account(t)
	_, _, ownKey := setup.account(t)
	setup.stop(t)

	s, otlp := startStock(t, map[string]string{"LLMCOST_DATABASE_URL": url, "LLMCOST_AGENT_PROJECT_ID": stockProject})

	// Each fixture is first stored through another transport, so every
	// transport's events are compared field by field with the expected ones.
	var want []expectedCall
	for i, name := range otlpFixtures {
		body := readOTLPFixture(t, name)
		otlp.send(t, name, transports[i%len(transports)], body)
		s.postOTLP(t, "/v1/otlp/v1/logs", ownKey, body, jsonType).must(t, http.StatusOK)
		want = append(want, readExpected(t, name).Events...)
	}
	stock := checkStored(t, s, stockKey, want)
	if own := s.listed(t, ownKey); !reflect.DeepEqual(stock, own) {
		t.Fatalf("the stock pipeline and our endpoint stored different events:\n%v\n%v", stock, own)
	}

	// Every export re-sent over every transport stores nothing new.
	for _, name := range otlpFixtures {
		body := readOTLPFixture(t, name)
		for _, transport := range transports {
			otlp.send(t, name, transport, body)
		}
	}
	if again := s.listed(t, stockKey); !reflect.DeepEqual(again, stock) {
		t.Fatalf("re-sending the exports changed the stored events:\n%v\n%v", stock, again)
	}
	// The stock receiver cannot report invalid records to the agent; the
	// collector's log does.
	if !strings.Contains(s.stderr.String(), "cost processor rejected invalid model-call log records") {
		t.Errorf("the invalid records of mixed_and_malformed.json were not logged:\n%s", s.stderr.String())
	}
}

// A cost processor without project_id behind the stock receiver refuses
// raw agent logs with an error naming project_id: HTTP 500 and gRPC
// INTERNAL (permanent, so exporters do not retry), as docs/agents.md says.
func TestStockOTLPReceiverWithoutProjectIDRefusesAgentLogs(t *testing.T) {
	_, otlp := startStock(t, map[string]string{"LLMCOST_AGENT_PROJECT_ID": ""})
	body := readOTLPFixture(t, "claude_code_session.json")
	r := (&service{URL: otlp.httpURL}).postOTLP(t, "/v1/logs", "", body, jsonType)
	if r.Status != http.StatusInternalServerError || !strings.Contains(string(r.Raw), "project_id is not set") {
		t.Errorf("HTTP: %d %s, want 500 naming project_id", r.Status, r.Raw)
	}
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalJSON(body); err != nil {
		t.Fatal(err)
	}
	_, err := otlp.grpc.Export(context.Background(), req)
	if st, _ := status.FromError(err); st.Code() != codes.Internal || !strings.Contains(st.Message(), "project_id is not set") {
		t.Errorf("gRPC: %v, want INTERNAL naming project_id", err)
	}
}
