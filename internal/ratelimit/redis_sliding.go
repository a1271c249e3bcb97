package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// logScript counts one event in a sorted set of event times (scores in
// Unix milliseconds) unless the set holds ARGV[3] events after now −
// window; then it returns the oldest one's time, else −1. Events at or
// before now − window leave the set first, so it holds at most the limit.
// The key expires ARGV[5] ms after the latest counted event: two of this
// limit's windows, never the request limiter's shorter ttl, so an hour's
// log does not vanish after two minutes. Atomic on the server, one round
// trip.
var logScript = redis.NewScript(`redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return -1`)

// CountEvent implements EventLog: the log of key is a sorted set that
// expires two windows after its latest event.
func (r *Redis) CountEvent(ctx context.Context, key string, now time.Time, window time.Duration, limit int) (bool, time.Time, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, redisTimeout)
		defer cancel()
	}
	ms := now.UnixMilli()
	// Two events in one millisecond are two members.
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	member := strconv.FormatInt(ms, 10) + ":" + hex.EncodeToString(nonce[:])
	oldest, err := logScript.Run(ctx, r.client, []string{"llmcost:ratelog:" + key},
		ms, window.Milliseconds(), limit, member, (2 * window).Milliseconds()).Int64()
	if err != nil {
		if !strings.HasPrefix(err.Error(), "redis: ") {
			err = fmt.Errorf("redis: %w", err)
		}
		return false, time.Time{}, err
	}
	if oldest < 0 {
		return true, time.Time{}, nil
	}
	return false, time.UnixMilli(oldest), nil
}
