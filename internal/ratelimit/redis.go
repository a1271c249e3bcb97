package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// countScript counts one request unless the window is full (then -1), so
// refused requests are not counted, as in PostgreSQL; the key expires with
// its window. One round trip, atomic on the server; go-redis sends it as
// EVALSHA and falls back to EVAL when the server does not hold it yet.
var countScript = redis.NewScript(`local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= tonumber(ARGV[1]) then return -1 end
c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return c`)

// redisTimeout bounds dialling and each read and write unless the URL sets
// dial_timeout, read_timeout or write_timeout; a request whose context has
// no deadline gets this long for its whole count, retries included, so a
// Redis that does not answer delays a request by at most this.
const redisTimeout = 2 * time.Second

// Redis is a Counter on a Redis server (LLMCOST_REDIS_URL), for
// deployments that keep rate limits off PostgreSQL. It uses go-redis,
// which keeps the connection pool, reconnects after a server restart,
// negotiates RESP3 and caches the script on the server.
type Redis struct {
	client *redis.Client
	// ttl is how long a window's key lives after its first count, in
	// milliseconds: two windows, so it outlives its window whatever the
	// clocks say.
	ttl int64
}

// NewRedis parses redis[s]://[[user]:password@]host[:port][/db][?options]
// (go-redis's ParseURL, so its query options apply) for a limiter of the
// given window; it does not dial.
func NewRedis(rawURL string, window time.Duration) (*Redis, error) {
	opt, err := parseRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	return &Redis{client: redis.NewClient(opt), ttl: int64(2 * window / time.Millisecond)}, nil
}

// ValidateRedisURL reports what is wrong with rawURL, as NewRedis would,
// without creating a client.
func ValidateRedisURL(rawURL string) error {
	_, err := parseRedisURL(rawURL)
	return err
}

// parseRedisURL returns the client options of rawURL, with this package's
// timeouts and retries where the URL sets none. Errors never repeat the
// URL: it may hold a password.
func parseRedisURL(rawURL string) (*redis.Options, error) {
	const form = "redis URL: must be redis[s]://[[user]:password@]host[:port][/db]"
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New(form + ", does not parse as a URL")
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("%s, scheme is %q", form, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, errors.New(form + ", host is missing")
	}
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", form, err)
	}
	if opt.DB < 0 {
		return nil, fmt.Errorf("%s, database %d must be ≥ 0", form, opt.DB)
	}
	q := u.Query()
	for name, d := range map[string]*time.Duration{"dial_timeout": &opt.DialTimeout,
		"read_timeout": &opt.ReadTimeout, "write_timeout": &opt.WriteTimeout} {
		if !q.Has(name) {
			*d = redisTimeout
		}
	}
	// One retry, on a fresh connection, covers a connection the server
	// closed (restart, idle timeout); more would only delay the request
	// the count is for. One dial attempt per try, for the same reason.
	if !q.Has("max_retries") {
		opt.MaxRetries = 1
	}
	opt.DialerRetries = 1
	// The request's deadline bounds the count, as redisTimeout does when
	// it has none.
	opt.ContextTimeoutEnabled = true
	return opt, nil
}

// CountRequest implements Counter.
func (r *Redis) CountRequest(ctx context.Context, key string, windowStart time.Time, limit int) (int, bool, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, redisTimeout)
		defer cancel()
	}
	k := "llmcost:ratelimit:" + key + ":" + strconv.FormatInt(windowStart.Unix(), 10)
	n, err := countScript.Run(ctx, r.client, []string{k}, limit, r.ttl).Int64()
	if err != nil {
		if !strings.HasPrefix(err.Error(), "redis: ") { // a dial or network error
			err = fmt.Errorf("redis: %w", err)
		}
		return 0, true, err
	}
	if n < 0 {
		return limit, false, nil
	}
	return int(n), true, nil
}

// LogRedisTo sends go-redis's own messages (a failed dial, say) to log at
// debug level, where the requests it let through are logged, instead of
// the process's stderr. go-redis has one logger per process.
func LogRedisTo(log *zap.Logger) { redis.SetLogger(zapPrintf{log}) }

// zapPrintf is go-redis's Logging on a zap.Logger.
type zapPrintf struct{ log *zap.Logger }

// Printf implements go-redis's Logging.
func (z zapPrintf) Printf(_ context.Context, format string, v ...any) {
	z.log.Debug(fmt.Sprintf(format, v...))
}

// Close closes the client's connections.
func (r *Redis) Close() {
	_ = r.client.Close()
}
