package costeventsreceiver

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/ingest"
	"github.com/llmcost/llmcost/receiver/costeventsreceiver/internal/metadata"
)

func newTestReceiver(next consumer.Logs) *costReceiver {
	return newTestReceiverWith(receivertest.NewNopSettings(metadata.Type), next)
}

func newTestReceiverWith(set receiver.Settings, next consumer.Logs) *costReceiver {
	r, err := newReceiver(createDefaultConfig().(*Config), set, next)
	if err != nil {
		panic(err) // only a broken meter provider fails, never the test's
	}
	return r
}

// An asynchronous pipeline (nothing fills the result) must not answer 200.
func TestConsumeRefusesUnfilledResult(t *testing.T) {
	r := newTestReceiver(consumertest.NewNop())
	_, err := r.consume(context.Background(), formatBatch, plog.NewLogs(), func() {})
	if err == nil || apierr.As(err).Code != apierr.Internal {
		t.Fatalf("got %v, want an internal error", err)
	}
}

func TestConsumeReturnsTheFilledResult(t *testing.T) {
	fill := consumerFunc(func(ctx context.Context, _ plog.Logs) error {
		ingest.FromContext(ctx).Fill(3, 2, 1)
		return nil
	})
	res, err := newTestReceiver(fill).consume(context.Background(), formatBatch, plog.NewLogs(), func() {})
	if err != nil || res.Stored.Load() != 3 || res.Duplicate.Load() != 2 || res.Outcomes.Load() != 1 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestPipelineErrorsMapToStatuses(t *testing.T) {
	cases := []struct {
		err  error
		code string
	}{
		{consumererror.NewRetryableError(errors.New("db down")), apierr.Unavailable},
		{errors.New("plain"), apierr.Unavailable},
		{consumererror.NewPermanent(errors.New("bad")), apierr.Internal},
		{consumererror.NewPermanent(apierr.New(apierr.ValidationFailed, "x")), apierr.ValidationFailed},
	}
	for _, c := range cases {
		fail := consumerFunc(func(context.Context, plog.Logs) error { return c.err })
		_, err := newTestReceiver(fail).consume(context.Background(), formatBatch, plog.NewLogs(), func() {})
		if got := apierr.As(err).Code; got != c.code {
			t.Errorf("%v: code %s, want %s", c.err, got, c.code)
		}
	}
}

type consumerFunc func(context.Context, plog.Logs) error

func (f consumerFunc) ConsumeLogs(ctx context.Context, ld plog.Logs) error { return f(ctx, ld) }
func (consumerFunc) Capabilities() consumer.Capabilities                   { return consumer.Capabilities{} }
