package jobs

import (
	"context"
	"errors"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmcost/llmcost/internal/mail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openDB migrates a fresh database, River's tables included.
func openDB(t *testing.T, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(context.Background(), Migrate(zap.NewNop())); err != nil {
		t.Fatal(err)
	}
	return db
}

// fast is a retry policy for tests: 100 ms, 200 ms, 400 ms, ...
var fast = Backoff{Min: 100 * time.Millisecond, Max: time.Second}

func startRunner(t *testing.T, cfg Config) *Runner {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return r
}

// flakySender fails its first failures calls with err, then succeeds.
type flakySender struct {
	mu       sync.Mutex
	failures int
	err      error
	calls    []time.Time
	sent     []mail.Message
}

func (f *flakySender) Send(_ context.Context, m mail.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, time.Now())
	if len(f.calls) <= f.failures {
		return f.err
	}
	f.sent = append(f.sent, m)
	return nil
}

func (f *flakySender) snapshot() (calls []time.Time, sent []mail.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time{}, f.calls...), append([]mail.Message{}, f.sent...)
}

// jobState waits until the only mail job is in one of states and returns
// it with its attempt count.
func jobState(t *testing.T, db *postgres.DB, states ...string) (string, int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var state string
	var attempt int
	for time.Now().Before(deadline) {
		err := db.Pool.QueryRow(context.Background(),
			`SELECT state::text, attempt FROM river_job WHERE kind = 'mail'`).Scan(&state, &attempt)
		if err == nil && contains(states, state) {
			return state, attempt
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("mail job is %q after 15s, want one of %v", state, states)
	return "", 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var verify = mail.Message{To: "ada@example.com", Subject: "Confirm", Body: "token=lcv_secret", Kind: "verify_email"}

func TestAFailedMailIsRetriedWithBackoffUntilSent(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	sender := &flakySender{failures: 2, err: errors.New("connection refused")}
	r := startRunner(t, Config{Pool: db.Pool, Mailer: sender, Retry: fast, MailAttempts: 5})
	if err := r.SendMail(context.Background(), verify); err != nil {
		t.Fatal(err)
	}
	if state, attempt := jobState(t, db, "completed"); attempt != 3 {
		t.Fatalf("job %s after %d attempts, want completed on the third", state, attempt)
	}
	calls, sent := sender.snapshot()
	if len(calls) != 3 || len(sent) != 1 || sent[0] != verify {
		t.Fatalf("%d calls, sent %+v", len(calls), sent)
	}
	// 100 ms then 200 ms, each −10 % jitter at most.
	if gap := calls[1].Sub(calls[0]); gap < 90*time.Millisecond {
		t.Errorf("first retry after %s, want ≥ 90ms", gap)
	}
	if gap := calls[2].Sub(calls[1]); gap < 180*time.Millisecond {
		t.Errorf("second retry after %s, want ≥ 180ms", gap)
	}
}

func TestAMailIsGivenUpAfterItsAttempts(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	core, logs := observer.New(zap.InfoLevel)
	sender := &flakySender{failures: 100, err: errors.New("connection refused")}
	r := startRunner(t, Config{Pool: db.Pool, Logger: zap.New(core), Mailer: sender, Retry: fast, MailAttempts: 3})
	if err := r.SendMail(context.Background(), verify); err != nil {
		t.Fatal(err)
	}
	if _, attempt := jobState(t, db, "discarded"); attempt != 3 {
		t.Fatalf("discarded after %d attempts, want 3", attempt)
	}
	if n := logs.FilterMessage("e-mail could not be sent; giving up").Len(); n != 1 {
		t.Errorf("%d give-up lines, want 1", n)
	}
	for _, e := range logs.All() {
		if strings.Contains(e.Message+fieldsText(e), "lcv_secret") {
			t.Fatalf("the token is in the log: %v", e)
		}
	}
}

func fieldsText(e observer.LoggedEntry) string {
	var b strings.Builder
	for k, v := range e.ContextMap() {
		b.WriteString(k + "=" + strings.TrimSpace(toString(v)) + " ")
	}
	return b.String()
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func TestARefusedMailIsNotRetried(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	sender := &flakySender{failures: 100, err: &textproto.Error{Code: 550, Msg: "no such mailbox"}}
	r := startRunner(t, Config{Pool: db.Pool, Mailer: sender, Retry: fast, MailAttempts: 5})
	if err := r.SendMail(context.Background(), verify); err != nil {
		t.Fatal(err)
	}
	if _, attempt := jobState(t, db, "cancelled"); attempt != 1 {
		t.Fatalf("cancelled after %d attempts, want 1", attempt)
	}
}

// Without SMTP nothing is queued: no token is stored for a mail that is
// only logged.
func TestWithoutAMailerMailIsOnlyLogged(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	core, logs := observer.New(zap.InfoLevel)
	r := startRunner(t, Config{Pool: db.Pool, Logger: zap.New(core), Retry: fast, MailAttempts: 5})
	if err := r.SendMail(context.Background(), verify); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d jobs queued (%v), want none", n, err)
	}
	line := logs.FilterMessage("e-mail not sent: no SMTP server is configured").All()
	if len(line) != 1 || line[0].ContextMap()["to"] != verify.To || strings.Contains(fieldsText(line[0]), "lcv_") {
		t.Fatalf("log: %v", logs.All())
	}
}

// Two instances starting together both migrate, without a race.
func TestConcurrentMigrationsBothSucceed(t *testing.T) {
	url := pgtest.NewDatabase(t)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			db, err := postgres.Open(context.Background(), url, 4)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			_, err = db.Migrate(context.Background(), Migrate(zap.NewNop()))
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	db := openDB(t, url) // a third run finds nothing to do
	var n int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_migration`).Scan(&n); err != nil || n < 6 {
		t.Fatalf("river_migration has %d rows (%v)", n, err)
	}
}
