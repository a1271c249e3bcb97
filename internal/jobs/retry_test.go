package jobs

import (
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
)

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	b := Backoff{Min: 10 * time.Second, Max: time.Hour}
	for _, c := range []struct {
		failures int
		want     time.Duration
	}{
		{1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second}, {9, 2560 * time.Second},
		{10, time.Hour}, {39, time.Hour}, {500, time.Hour},
	} {
		if got := b.Delay(c.failures); got != c.want {
			t.Errorf("Delay(%d) = %s, want %s", c.failures, got, c.want)
		}
	}
}

// The production defaults must keep a mail for at least a day of outage.
func TestDefaultMailRetriesSpanMoreThanADay(t *testing.T) {
	span := DefaultBackoff.Span(DefaultMailAttempts)
	if span < 24*time.Hour || span > 48*time.Hour {
		t.Fatalf("a mail is retried for %s; want between one and two days", span)
	}
	if got := (Backoff{Min: time.Second, Max: 4 * time.Second}).Span(4); got != 7*time.Second {
		t.Errorf("Span(4) of 1s..4s = %s, want 1+2+4 = 7s", got)
	}
}

func TestNextRetryStaysWithinTheJitter(t *testing.T) {
	b := Backoff{Min: time.Second, Max: time.Minute}
	job := &rivertype.JobRow{Errors: make([]rivertype.AttemptError, 2)} // the third failure: 4 s
	for range 200 {
		wait := time.Until(b.NextRetry(job))
		if wait < 3500*time.Millisecond || wait > 4500*time.Millisecond {
			t.Fatalf("third retry in %s, want 4 s ± 10 %%", wait)
		}
	}
}

func TestBackoffValidate(t *testing.T) {
	for _, b := range []Backoff{{}, {Min: time.Second}, {Min: -time.Second, Max: time.Second}} {
		if err := b.validate(); err == nil {
			t.Errorf("%+v accepted", b)
		}
	}
	if err := DefaultBackoff.validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Retry: DefaultBackoff}); err == nil {
		t.Fatal("zero mail attempts accepted")
	}
}
