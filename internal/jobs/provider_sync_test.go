package jobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/providers/providerstest"
	"github.com/llmcost/llmcost/internal/reconcile"
	"github.com/llmcost/llmcost/internal/secretbox"
)

const (
	syncAntKey = "sk-ant-admin01-sync-test-key-00000000"
	syncOAIKey = "sk-admin-sync-test-key-000000000000"
)

type syncFixture struct {
	db      *postgres.DB
	keys    *secretbox.Box
	project string
	now     time.Time
	ant     *providerstest.Anthropic
	oai     *providerstest.OpenAI
	sync    *ProviderSync
}

func newSyncFixture(t *testing.T) *syncFixture {
	t.Helper()
	f := &syncFixture{db: openDB(t, pgtest.NewDatabase(t)), now: time.Now().UTC().Truncate(time.Second)}
	var err error
	if f.keys, err = secretbox.New(strings.Repeat("k", 32)); err != nil {
		t.Fatal(err)
	}
	_, p, err := f.db.Register(context.Background(), postgres.User{Email: uuid.NewString() + "@example.com", PasswordHash: "x"}, nil,
		postgres.NewProject{Name: "p", KeyHash: []byte(uuid.NewString()), KeyPrefix: "sk_llmc_xxxx"},
		postgres.Session{AccessHash: []byte(uuid.NewString()), RefreshHash: []byte(uuid.NewString()),
			AccessExpiresAt: f.now.Add(time.Hour), ExpiresAt: f.now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	f.project = p.ID
	f.ant, f.oai = providerstest.NewAnthropic(t, syncAntKey), providerstest.NewOpenAI(t, syncOAIKey)
	noWait := func(context.Context, time.Duration) error { return nil }
	f.sync = &ProviderSync{DB: f.db, Keys: f.keys, Interval: time.Hour, Log: zap.NewNop(), Now: func() time.Time { return f.now },
		Clients: map[string]providers.Client{
			providers.Anthropic: providers.NewAnthropic(providers.Options{BaseURL: f.ant.URL(), HTTP: f.ant.Client(), Wait: noWait}),
			providers.OpenAI:    providers.NewOpenAI(providers.Options{BaseURL: f.oai.URL(), HTTP: f.oai.Client(), Wait: noWait}),
		}}
	return f
}

func (f *syncFixture) connect(t *testing.T, provider, key string, backfill int) {
	t.Helper()
	sealed, err := f.keys.Seal([]byte(key), reconcile.KeyAAD(f.project, provider))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.db.PutConnection(context.Background(), postgres.Connection{ProjectID: f.project, Provider: provider,
		KeySealed: sealed, KeyHint: reconcile.KeyHint(key), BackfillDays: backfill, ToleranceBP: 200}); err != nil {
		t.Fatal(err)
	}
}

func (f *syncFixture) status(t *testing.T, provider string) postgres.Connection {
	t.Helper()
	c, err := f.db.Connection(context.Background(), f.project, provider)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProviderSyncBackfillsThenRefreshesRecentDays(t *testing.T) {
	f := newSyncFixture(t)
	today := providers.Day(f.now)
	var usage []providerstest.AnthropicUsage
	for i := range 45 {
		usage = append(usage, providerstest.AnthropicUsage{Day: today.AddDate(0, 0, -i), Model: "claude-sonnet-4-5",
			Tier: "standard", Uncached: 100, Output: 10})
	}
	f.ant.SetData(usage, nil)
	f.ant.SetFaults(providerstest.Faults{RateLimited: 1, RetryAfter: 2})
	f.connect(t, providers.Anthropic, syncAntKey, 40)
	if n, err := f.sync.RunDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("run: %d %v", n, err)
	}
	c := f.status(t, providers.Anthropic)
	if c.SyncStatus != postgres.SyncOK || c.LastSyncAt == nil || !c.NextAttemptAt.Equal(f.now.Add(time.Hour)) {
		t.Fatalf("after back-fill: %+v", c)
	}
	rep, _ := f.db.ProviderReports(context.Background(), f.project, today.AddDate(0, 0, -60), today.AddDate(0, 0, 1))
	if len(rep.Usage) != 40 || len(rep.Days) != 40 {
		t.Fatalf("back-filled %d usage rows over %d days, want 40", len(rep.Usage), len(rep.Days))
	}
	// Not due again before its interval; then only the recent days.
	if n, _ := f.sync.RunDue(context.Background()); n != 0 {
		t.Fatal("synced again before the interval")
	}
	before := len(f.ant.Requests())
	f.now = f.now.Add(time.Hour)
	if n, err := f.sync.RunDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("second run: %d %v", n, err)
	}
	second := f.ant.Requests()[before]
	want := "starting_at=" + strings.ReplaceAll(providers.Day(f.now).AddDate(0, 0, -2).Format(time.RFC3339), ":", "%3A")
	if !strings.Contains(second, want) {
		t.Fatalf("second sync asked %s, want %s", second, want)
	}
}

func TestProviderSyncBadKeyFailsAndProviderDownRetries(t *testing.T) {
	f := newSyncFixture(t)
	f.connect(t, providers.Anthropic, "sk-ant-admin01-revoked-key-0000000000", 7)
	f.connect(t, providers.OpenAI, syncOAIKey, 7)
	f.oai.SetFaults(providerstest.Faults{Down: true})
	if n, err := f.sync.RunDue(context.Background()); err != nil || n != 2 {
		t.Fatalf("run: %d %v", n, err)
	}
	bad := f.status(t, providers.Anthropic)
	if bad.SyncStatus != postgres.SyncFailed || bad.LastSyncError == nil ||
		!strings.Contains(*bad.LastSyncError, "admin key was refused") || strings.Contains(*bad.LastSyncError, "revoked-key") {
		t.Fatalf("bad key: %+v", bad)
	}
	down := f.status(t, providers.OpenAI)
	if down.SyncStatus != postgres.SyncRetrying || !down.NextAttemptAt.Equal(f.now.Add(time.Minute)) ||
		!strings.Contains(*down.LastSyncError, "503") {
		t.Fatalf("provider down: %+v", down)
	}
	// The provider is back: the retry succeeds; the refused key waits.
	f.oai.SetFaults(providerstest.Faults{})
	f.now = f.now.Add(time.Minute)
	if n, err := f.sync.RunDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("retry: %d %v", n, err)
	}
	if c := f.status(t, providers.OpenAI); c.SyncStatus != postgres.SyncOK || c.LastSyncError != nil || c.Failures != 0 {
		t.Fatalf("after retry: %+v", c)
	}
	if c := f.status(t, providers.Anthropic); c.SyncStatus != postgres.SyncFailed {
		t.Fatalf("a refused key was retried: %+v", c)
	}
}

func TestProviderSyncWithoutTheSecret(t *testing.T) {
	f := newSyncFixture(t)
	f.connect(t, providers.OpenAI, syncOAIKey, 7)
	f.sync.Keys = nil
	if _, err := f.sync.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := f.status(t, providers.OpenAI); c.SyncStatus != postgres.SyncFailed || !strings.Contains(*c.LastSyncError, "LLMCOST_SECRET_KEY") {
		t.Fatalf("%+v", c)
	}
}

func TestRetryDelay(t *testing.T) {
	for failures, want := range map[int]time.Duration{1: time.Minute, 2: 2 * time.Minute, 7: time.Hour, 30: time.Hour} {
		if got := retryDelay(failures); got != want {
			t.Errorf("retryDelay(%d) = %s, want %s", failures, got, want)
		}
	}
}

// The runner syncs a due connection by itself (the periodic run at
// start), and "sync now" queues another run.
func TestRunnerSyncsConnections(t *testing.T) {
	f := newSyncFixture(t)
	f.sync.Now = time.Now
	f.connect(t, providers.OpenAI, syncOAIKey, 3)
	r := startRunner(t, Config{Pool: f.db.Pool, Mailer: &flakySender{}, Retry: fast, MailAttempts: 1, Providers: f.sync})
	waitStatus := func(want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for f.status(t, providers.OpenAI).SyncStatus != want {
			if time.Now().After(deadline) {
				t.Fatalf("status %s, want %s", f.status(t, providers.OpenAI).SyncStatus, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitStatus(postgres.SyncOK)
	f.oai.SetKey("sk-admin-rotated-on-the-provider-side")
	if err := f.db.RequestSync(context.Background(), f.project, providers.OpenAI); err != nil {
		t.Fatal(err)
	}
	if err := r.SyncNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitStatus(postgres.SyncFailed)
}
