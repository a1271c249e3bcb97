// Package catalogsync keeps the price catalogue in force: it restores the
// last good catalogue at start, fetches LiteLLM's price file on an interval,
// applies admin uploads, refuses updates that fail the sanity bounds, swaps
// the result in atomically, persists every version put in force, and
// reports what happened for the sync status endpoint.
package catalogsync

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Modes of the catalogue in force, as the sync status reports them.
const (
	ModeEmbedded = postgres.ModeEmbedded
	ModeNetwork  = postgres.ModeNetwork
	ModeImport   = postgres.ModeImport
)

// Catalogue source names (the prefix of their versions).
const (
	SourceNetwork = "litellm"
	SourceImport  = "import"
)

// Store persists catalogues; *postgres.DB is one. Without a store (the
// mirror) nothing survives a restart.
type Store interface {
	SaveCatalogue(ctx context.Context, st postgres.CatalogueState) error
	SaveCatalogueVersion(ctx context.Context, cat *pricing.Catalogue) error
	LoadCatalogue(ctx context.Context) (postgres.CatalogueState, bool, error)
	CatalogueInForce(ctx context.Context) (version string, ok bool, err error)
}

// Options configure a Syncer.
type Options struct {
	// Catalogue is the pointer the service prices from; the Syncer swaps it.
	Catalogue *atomic.Pointer[pricing.Catalogue]
	Store     Store  // nil: keep everything in memory
	URL       string // the LiteLLM price file (primary source); empty: not synced
	GenAIURL  string // genai-prices' prices/data.json (second source); empty: not synced
	// TolerancePPM is how far (parts per million of the larger rate) two
	// sources may differ and still agree; 0: pricing.DefaultTolerancePPM.
	TolerancePPM int64
	Interval     time.Duration // between syncs
	Timeout      time.Duration // one fetch, body included
	MaxBytes     int64         // size cap of the fetched file
	Client       *http.Client  // nil: a client using the environment's proxy settings
	UserAgent    string
	Logger       *zap.Logger
	Now          func() time.Time
}

// Status is the sync status record. Zero times and empty strings are
// absent values.
type Status struct {
	SourceURL     string
	LastAttemptAt time.Time
	LastSuccessAt time.Time
	LastError     string
	NextSyncAt    time.Time
	Models        int
	ChangedModels []string
	Mode          string
	Source        string
	Version       string
	// SyncedAt is when the catalogue in force was put in force; zero for
	// the built-in prices.
	SyncedAt time.Time
	// SourceURLs are the configured sources, the primary first.
	SourceURLs []string
	// Disagreements are the rates on which the sources differed beyond the
	// tolerance at the last sync; those models kept their price.
	Disagreements []pricing.Disagreement
}

// Syncer owns updates of the catalogue in force.
type Syncer struct {
	opts    Options
	builtin *pricing.Catalogue

	update sync.Mutex // serialises restore, syncs and imports

	mu      sync.Mutex // guards the fields below
	status  Status
	updated map[string]time.Time

	stop func()
	done chan struct{}
}

// New returns a Syncer; the catalogue pointer starts at the built-in
// prices unless it already holds a catalogue.
func New(opts Options) *Syncer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	s := &Syncer{opts: opts, builtin: pricing.Builtin(), updated: map[string]time.Time{}}
	if opts.Catalogue.Load() == nil {
		opts.Catalogue.Store(s.builtin)
	}
	cat := opts.Catalogue.Load()
	s.status = Status{SourceURL: redact(opts.URL), Mode: ModeEmbedded, Models: cat.Len(),
		Source: cat.Source(), Version: cat.Version(), ChangedModels: []string{}}
	for _, u := range s.sourceURLs() {
		s.status.SourceURLs = append(s.status.SourceURLs, redact(u))
	}
	return s
}

func (s *Syncer) tolerance() int64 {
	if s.opts.TolerancePPM > 0 {
		return s.opts.TolerancePPM
	}
	return pricing.DefaultTolerancePPM
}

// Status returns a copy of the current status.
func (s *Syncer) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.ChangedModels = append([]string{}, st.ChangedModels...)
	st.SourceURLs = append([]string{}, st.SourceURLs...)
	st.Disagreements = append([]pricing.Disagreement{}, st.Disagreements...)
	return st
}

// UpdatedAt is when model's entry last changed: the update that changed
// it, or for prices unchanged since the built-in table, the month that
// table was checked against the providers.
func (s *Syncer) UpdatedAt(model string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.updated[model]; ok {
		return t
	}
	return BuiltinCheckedAt()
}

// BuiltinCheckedAt is the first day of the month named by
// pricing.BuiltinSource ("builtin-2026-11").
func BuiltinCheckedAt() time.Time {
	const prefix = "builtin-"
	if len(pricing.BuiltinSource) > len(prefix) {
		if t, err := time.Parse("2006-01", pricing.BuiltinSource[len(prefix):]); err == nil {
			return t
		}
	}
	return time.Time{}
}

// Start runs the network sync in the background: at once, then every
// Interval. It never blocks and does nothing without a URL. It is for a
// service without a store (the mirror); with one, the job runner schedules
// SyncScheduled and Follow keeps every instance in step.
func (s *Syncer) Start() {
	if len(s.sourceURLs()) == 0 {
		return
	}
	s.loop(0, s.opts.Interval, func(ctx context.Context) {
		_ = s.SyncOnce(ctx)
		s.setNext(s.opts.Now().Add(s.opts.Interval))
	})
}

// loop runs tick after first, then every interval, until Stop; one loop
// per Syncer.
func (s *Syncer) loop(first, interval time.Duration, tick func(ctx context.Context)) {
	if s.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTimer(first)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			tick(ctx)
			t.Reset(interval)
		}
	}()
}

func (s *Syncer) setNext(next time.Time) {
	s.mu.Lock()
	s.status.NextSyncAt = next
	s.mu.Unlock()
}

// Stop ends the background sync or Follow, cancelling a fetch in flight.
func (s *Syncer) Stop() {
	if s.stop != nil {
		s.stop()
		<-s.done
		s.stop = nil
	}
}

// redact hides a password in the URL shown by the status endpoint.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
