package ratelimit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// countScript counts one request unless the window is full (then -1), so
// refused requests are not counted, as in PostgreSQL; the key expires with
// its window. One round trip, atomic on the server.
const countScript = `local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= tonumber(ARGV[1]) then return -1 end
c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return c`

// Redis is a Counter on a Redis server (LLMCOST_REDIS_URL), for
// deployments that keep rate limits off PostgreSQL. It speaks the few
// RESP commands it needs itself over a small pool of connections.
type Redis struct {
	addr, password string
	db             int
	pool           chan *redisConn
	// ttl is how long a window's key lives after its first count: two
	// windows, so it outlives its window whatever the clocks say.
	ttl string
	// Timeout bounds one count when the request's context sets no deadline.
	Timeout time.Duration
}

type redisConn struct {
	net.Conn
	r *bufio.Reader
}

// maxIdle is how many connections the pool keeps open.
const maxIdle = 16

// NewRedis parses redis://[:password@]host[:port][/db] for a limiter of
// the given window; it does not dial.
func NewRedis(rawURL string, window time.Duration) (*Redis, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "redis" || u.Hostname() == "" {
		return nil, fmt.Errorf("redis URL: must be redis://[:password@]host[:port][/db], got %q", rawURL)
	}
	r := &Redis{addr: u.Host, pool: make(chan *redisConn, maxIdle), Timeout: 2 * time.Second,
		ttl: strconv.FormatInt(int64(2*window/time.Millisecond), 10)}
	if u.Port() == "" {
		r.addr = net.JoinHostPort(u.Hostname(), "6379")
	}
	if p, ok := u.User.Password(); ok {
		r.password = p
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		if r.db, err = strconv.Atoi(db); err != nil || r.db < 0 {
			return nil, fmt.Errorf("redis URL: database %q must be a number ≥ 0", db)
		}
	}
	return r, nil
}

// CountRequest implements Counter.
func (r *Redis) CountRequest(ctx context.Context, key string, windowStart time.Time, limit int) (int, bool, error) {
	k := "llmcost:ratelimit:" + key + ":" + strconv.FormatInt(windowStart.Unix(), 10)
	n, err := r.do(ctx, "EVAL", countScript, "1", k, strconv.Itoa(limit), r.ttl)
	if err != nil {
		return 0, true, err
	}
	if n < 0 {
		return limit, false, nil
	}
	return int(n), true, nil
}

// Close closes the idle connections.
func (r *Redis) Close() {
	for {
		select {
		case c := <-r.pool:
			c.Close()
		default:
			return
		}
	}
}

// do runs one command that answers an integer (or +OK).
func (r *Redis) do(ctx context.Context, args ...string) (int64, error) {
	c, err := r.conn(ctx)
	if err != nil {
		return 0, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(r.Timeout)
	}
	_ = c.SetDeadline(deadline)
	n, err := c.command(args...)
	if err != nil {
		var re redisError
		if !errors.As(err, &re) { // the connection may be broken: drop it
			c.Close()
			return 0, err
		}
	}
	select {
	case r.pool <- c:
	default:
		c.Close()
	}
	return n, err
}

// conn takes an idle connection or dials one (AUTH and SELECT included).
func (r *Redis) conn(ctx context.Context) (*redisConn, error) {
	select {
	case c := <-r.pool:
		return c, nil
	default:
	}
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	nc, err := d.DialContext(dctx, "tcp", r.addr)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	c := &redisConn{Conn: nc, r: bufio.NewReader(nc)}
	_ = c.SetDeadline(time.Now().Add(r.Timeout))
	if r.password != "" {
		if _, err := c.command("AUTH", r.password); err != nil {
			c.Close()
			return nil, err
		}
	}
	if r.db != 0 {
		if _, err := c.command("SELECT", strconv.Itoa(r.db)); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// redisError is an error reply: the connection is still usable.
type redisError string

func (e redisError) Error() string { return "redis: " + string(e) }

// command writes args as a RESP array and reads an integer, status or
// error reply.
func (c *redisConn) command(args ...string) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return 0, fmt.Errorf("redis: %w", err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("redis: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return 0, errors.New("redis: empty reply")
	}
	switch line[0] {
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '+':
		return 0, nil
	case '-':
		return 0, redisError(line[1:])
	}
	return 0, fmt.Errorf("redis: unexpected reply %q", line)
}
