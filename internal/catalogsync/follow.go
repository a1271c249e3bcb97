package catalogsync

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// Follow checks the store every interval and puts in force a catalogue
// another instance saved (a sync run there, an import sent to it), so
// every instance on one database prices with the same catalogue. It never
// blocks; Stop ends it. Without a store it does nothing.
func (s *Syncer) Follow(interval time.Duration) {
	if s.opts.Store == nil {
		return
	}
	s.loop(interval, interval, func(ctx context.Context) {
		if err := s.Refresh(ctx); err != nil {
			s.opts.Logger.Warn("could not check the saved price catalogue", zap.Error(err))
		}
	})
}

// Refresh puts the store's catalogue in force when its version differs
// from the one in memory. Unlike Restore it never re-merges nor saves: two
// instances of different versions would otherwise take turns re-saving.
func (s *Syncer) Refresh(ctx context.Context) error {
	if s.opts.Store == nil {
		return nil
	}
	version, ok, err := s.opts.Store.CatalogueInForce(ctx)
	if err != nil || !ok || version == s.opts.Catalogue.Load().Version() {
		return err
	}
	s.update.Lock()
	defer s.update.Unlock()
	st, ok, err := s.opts.Store.LoadCatalogue(ctx)
	if err != nil || !ok {
		return err
	}
	s.swap(st)
	s.opts.Logger.Info("price catalogue put in force by another instance loaded",
		zap.String("mode", st.Mode), zap.String("version", st.Catalogue.Version()))
	return nil
}

// SyncScheduled is one run of the periodic sync job, on whichever instance
// the job runner picked. It first catches up with the catalogue in force,
// so the sanity bounds compare against what every instance serves, then
// syncs and records when the next run is due. Failures are in the status.
func (s *Syncer) SyncScheduled(ctx context.Context) error {
	if err := s.Refresh(ctx); err != nil {
		s.opts.Logger.Warn("could not check the saved price catalogue before a sync", zap.Error(err))
	}
	err := s.SyncOnce(ctx)
	s.setNext(s.opts.Now().Add(s.opts.Interval))
	return err
}
