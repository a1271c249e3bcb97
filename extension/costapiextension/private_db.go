package costapiextension

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres/pgserver"
)

// maxRestartBackoff bounds the wait between attempts to restart a crashed
// private PostgreSQL.
const maxRestartBackoff = 30 * time.Second

// privateDB is the private PostgreSQL llmcost runs when no database_url is
// set, with a supervisor: if the server exits while llmcost runs (a crash,
// an OOM kill), it is started again on the same data directory and socket,
// so the pool reconnects by itself. Meanwhile requests answer 503.
type privateDB struct {
	opts   pgserver.Options
	log    *zap.Logger
	ctx    context.Context // cancelled by Stop, so a restart in progress ends
	cancel context.CancelFunc
	done   chan struct{} // closed when the supervisor has returned
	// restarted runs after each successful restart: the pool drops the
	// connections of the dead server rather than failing requests on them.
	restarted func()

	mu  sync.Mutex
	srv *pgserver.Server
}

// errNoPostgres is the one line a newcomer sees when the machine lacks the
// PostgreSQL server binaries: what to install, or what to set instead.
var errNoPostgres = errors.New("the PostgreSQL server binaries (initdb, postgres) are missing: " +
	"install the package postgresql (sudo apt-get install postgresql, or `make run` as root), " +
	"or set LLMCOST_DATABASE_URL to an existing database")

func startPrivateDB(ctx context.Context, opts pgserver.Options, log *zap.Logger, restarted func()) (*privateDB, error) {
	srv, err := pgserver.Start(ctx, opts)
	if errors.Is(err, pgserver.ErrNoBinaries) {
		return nil, errNoPostgres
	}
	if err != nil {
		return nil, err
	}
	p := &privateDB{opts: opts, log: log, srv: srv, done: make(chan struct{}), restarted: restarted}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.supervise()
	return p, nil
}

// URL is the server's address; it stays the same across restarts.
func (p *privateDB) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.srv.URL()
}

func (p *privateDB) current() *pgserver.Server {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.srv
}

func (p *privateDB) supervise() {
	defer close(p.done)
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-p.current().Done():
		}
		p.log.Error("the private PostgreSQL exited; restarting it", zap.String("data_dir", p.opts.DataDir))
		if !p.restart() {
			return
		}
	}
}

// restart starts the server again with a growing backoff; false when Stop
// ended the attempts.
func (p *privateDB) restart() bool {
	for attempt := 1; ; attempt++ {
		srv, err := pgserver.Start(p.ctx, p.opts)
		if err == nil {
			p.mu.Lock()
			p.srv = srv
			p.mu.Unlock()
			p.restarted()
			p.log.Info("the private PostgreSQL is back", zap.Int("attempt", attempt))
			return true
		}
		p.log.Warn("restarting the private PostgreSQL failed", zap.Int("attempt", attempt), zap.Error(err))
		select {
		case <-p.ctx.Done():
			return false
		case <-time.After(min(time.Duration(attempt)*time.Second, maxRestartBackoff)):
		}
	}
}

// Stop ends supervision, then stops the server. A server that had already
// crashed (its exit was logged when it happened) is not an error here.
func (p *privateDB) Stop(ctx context.Context) error {
	p.cancel()
	<-p.done
	srv := p.current()
	select {
	case <-srv.Done():
		return nil
	default:
		return srv.Stop(ctx)
	}
}
