package jobs

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// Backoff is the retry policy: the delay doubles after each failed attempt,
// from Min up to Max, with ±10 % jitter so jobs that failed together (an
// SMTP outage) do not all come back in the same second.
type Backoff struct {
	Min, Max time.Duration
}

// DefaultBackoff starts at ten seconds and settles at one retry an hour.
var DefaultBackoff = Backoff{Min: 10 * time.Second, Max: time.Hour}

// DefaultMailAttempts with DefaultBackoff keeps retrying a mail for about
// 32 hours: an SMTP outage of a day loses nothing.
const DefaultMailAttempts = 40

func (b Backoff) validate() error {
	if b.Min <= 0 || b.Max < b.Min {
		return fmt.Errorf("retry backoff: need 0 < min ≤ max, got min %s, max %s", b.Min, b.Max)
	}
	return nil
}

// Delay is the wait after the failures-th failed attempt (1-based), without
// jitter.
func (b Backoff) Delay(failures int) time.Duration {
	d := b.Min
	for i := 1; i < failures && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// Span is how long a job of attempts attempts is retried for, without
// jitter: the sum of the waits between them.
func (b Backoff) Span(attempts int) time.Duration {
	var total time.Duration
	for n := 1; n < attempts; n++ {
		total += b.Delay(n)
	}
	return total
}

// NextRetry implements river.ClientRetryPolicy.
func (b Backoff) NextRetry(job *rivertype.JobRow) time.Time {
	// job.Errors holds the earlier failures; this one is not in it yet.
	d := b.Delay(len(job.Errors) + 1)
	jitter := time.Duration(rand.Int64N(int64(d)/5+1)) - d/10
	return time.Now().Add(d + jitter)
}
