package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// What a replica's reads know of it: its replay position, polled for the
// reads waiting on it, and whether it is set aside after a failure or
// lagging after a read gave up on it.

// usable reports whether the replica is not set aside after a failure.
func (r *replica) usable() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !time.Now().Before(r.downUntil)
}

// waitNow is how long a read may wait for the replica now: nothing (one
// poll) just after a read gave up on it.
func (r *replica) waitNow() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Now().Before(r.laggedUntil) {
		return 0
	}
	return r.wait
}

// lagged records that a read gave up waiting for the replica.
func (r *replica) lagged() {
	r.mu.Lock()
	r.laggedUntil = time.Now().Add(replicaLagHold)
	r.mu.Unlock()
}

// poll asks the replica its replay position, once for every read waiting
// meanwhile: the returned channel is closed when the answer is in.
func (r *replica) poll() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.polling != nil {
		return r.polling
	}
	done := make(chan struct{})
	r.polling = done
	go func() {
		defer close(done)
		pos, err := r.replayPosition()
		r.mu.Lock()
		r.polling = nil
		r.mu.Unlock()
		if err != nil {
			r.fail(err)
			return
		}
		for cur := r.replayed.Load(); pos > cur && !r.replayed.CompareAndSwap(cur, pos); cur = r.replayed.Load() {
		}
		r.up()
	}()
	return done
}

// errNotStandby: the replica URL names a server that is not replaying a
// primary's WAL (a primary, or a promoted standby), whose data may differ
// from the primary's.
var errNotStandby = errors.New("the replica is not a standby in recovery (pg_last_wal_replay_lsn() is NULL): reads stay on the primary")

// replayPosition reads the replica's replay position.
func (r *replica) replayPosition() (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), replicaPollTimeout)
	defer cancel()
	var pos *string
	if err := r.probe.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&pos); err != nil {
		if lostConnection(err) {
			r.pool.Reset()
			r.probe.Reset()
		}
		return 0, err
	}
	if pos == nil {
		return 0, errNotStandby
	}
	return parseLSN(*pos)
}

// fail sets the replica aside for the backoff, doubled since the last
// success.
func (r *replica) fail(err error) {
	r.mu.Lock()
	r.backoff = min(max(2*r.backoff, replicaMinBackoff), replicaMaxBackoff)
	r.downUntil = time.Now().Add(r.backoff)
	report := !r.failed
	r.failed = true
	r.mu.Unlock()
	if report && r.report != nil {
		r.report(err)
	}
}

// up records a successful poll.
func (r *replica) up() {
	r.mu.Lock()
	r.backoff, r.downUntil = 0, time.Time{}
	report := r.failed
	r.failed = false
	r.mu.Unlock()
	if report && r.report != nil {
		r.report(nil)
	}
}

// parseLSN reads a pg_lsn's text, two hexadecimal halves around a slash.
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("not a WAL position: %q", s)
	}
	return h<<32 | l, nil
}

// sleepCtx sleeps d unless ctx ends first, which it reports as false.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
