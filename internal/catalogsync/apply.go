package catalogsync

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Report is the outcome of one accepted update.
type Report struct {
	Imported      int
	Skipped       []pricing.Skip
	ChangedModels []string
	Version       string
	// Disagreements are the rates on which the sources differ beyond the
	// tolerance; those models kept their current price.
	Disagreements []pricing.Disagreement
}

// Restore puts the last catalogue saved in force, re-merged over this
// binary's built-in prices (so an upgrade's corrected built-in rates apply
// under the file's), and records the built-in version so events it prices
// can be looked up. Without a store, or with nothing saved, the built-in
// prices stay. An error leaves the built-in prices in force.
func (s *Syncer) Restore(ctx context.Context) error {
	if s.opts.Store == nil {
		return nil
	}
	s.update.Lock()
	defer s.update.Unlock()
	if err := s.opts.Store.SaveCatalogueVersion(ctx, s.builtin); err != nil {
		return err
	}
	st, ok, err := s.opts.Store.LoadCatalogue(ctx)
	if err != nil || !ok || st.Mode == ModeEmbedded {
		return err
	}
	saved := st.Catalogue
	var layer []pricing.Entry
	for _, e := range saved.Entries() {
		if e.Source != "builtin" {
			layer = append(layer, e)
		}
	}
	next := pricing.Merge(s.builtin, layer, saved.Source())
	if next.Version() != saved.Version() {
		changed := pricing.ChangedModels(saved, next)
		st.UpdatedAt = stampChanged(st.UpdatedAt, next, changed, s.opts.Now().UTC().Truncate(time.Microsecond))
		st.Catalogue, st.ChangedModels = next, changed
		if err := s.opts.Store.SaveCatalogue(ctx, st); err != nil {
			return err
		}
		s.opts.Logger.Info("saved price catalogue re-merged over new built-in prices",
			zap.String("version", next.Version()), zap.Int("changed_models", len(changed)))
	}
	s.swap(st)
	return nil
}

// Import applies an uploaded price file: LiteLLM's or genai-prices'
// (told apart by its top-level JSON value).
func (s *Syncer) Import(ctx context.Context, data []byte) (Report, error) {
	src, skipped, err := parseFile(data)
	if err != nil {
		return Report{}, err
	}
	return s.apply(ctx, []pricing.SourceEntries{src}, skipped, ModeImport, SourceImport)
}

// parseFile parses one price file in either format, refusing a document
// that is not one or that prices nothing.
func parseFile(data []byte) (pricing.SourceEntries, []pricing.Skip, error) {
	entries, skipped, format, err := pricing.ParseAny(data)
	switch {
	case err != nil && !json.Valid(data):
		return pricing.SourceEntries{}, nil, apierr.New(apierr.BadRequest, "the price file is not valid JSON")
	case err != nil:
		return pricing.SourceEntries{}, nil, apierr.Field("body", "must be a JSON object mapping model names to prices "+
			"(LiteLLM's model_prices_and_context_window.json) or a JSON array of providers (genai-prices' prices/data.json)")
	case len(entries) == 0:
		return pricing.SourceEntries{}, nil, apierr.Field("body", "no entry has per-token input and output rates; nothing to import").
			WithHint(fmt.Sprintf("%d entries were skipped, for example for being priced per image or per second", len(skipped)))
	}
	return pricing.SourceEntries{Name: format, Entries: entries}, skipped, nil
}

// apply reconciles the sources (the first is primary; a model the others
// price differently beyond the tolerance keeps its current price and is
// reported), checks the sanity bounds, merges the entries over the built-in
// prices, persists the result and puts it in force. A refused update
// changes nothing.
func (s *Syncer) apply(ctx context.Context, sources []pricing.SourceEntries, skipped []pricing.Skip, mode, source string) (Report, error) {
	s.update.Lock()
	defer s.update.Unlock()
	current := s.opts.Catalogue.Load()
	entries, dis := sources[0].Entries, []pricing.Disagreement(nil)
	if len(sources) > 1 {
		entries, dis = pricing.Reconcile(sources, current, s.opts.Now(), s.tolerance())
	}
	s.mu.Lock()
	s.status.Disagreements = dis
	s.mu.Unlock()
	if err := checkMassDrop(current, entries); err != nil {
		return Report{}, err
	}
	next := pricing.Merge(s.builtin, entries, source)
	rep := Report{Imported: len(entries), Skipped: skipped, Version: next.Version(),
		ChangedModels: pricing.ChangedModels(current, next), Disagreements: dis}
	s.mu.Lock()
	// PostgreSQL keeps microseconds; truncating keeps restored times equal.
	st := postgres.CatalogueState{Catalogue: next, Mode: mode, ActivatedAt: s.opts.Now().UTC().Truncate(time.Microsecond),
		UpdatedAt: maps.Clone(s.updated), ChangedModels: rep.ChangedModels}
	if next.Version() == current.Version() { // the same file again: nothing to put in force
		s.status.ChangedModels = []string{}
		s.mu.Unlock()
		return rep, nil
	}
	s.mu.Unlock()
	st.UpdatedAt = stampChanged(st.UpdatedAt, next, rep.ChangedModels, st.ActivatedAt)
	if s.opts.Store != nil {
		if err := s.opts.Store.SaveCatalogue(ctx, st); err != nil {
			return Report{}, err
		}
	}
	s.swap(st)
	s.opts.Logger.Info("price catalogue updated", zap.String("mode", mode), zap.String("version", next.Version()),
		zap.Int("models", next.Len()), zap.Int("changed_models", len(rep.ChangedModels)), zap.Int("skipped", len(skipped)))
	return rep, nil
}

// checkMassDrop refuses a file that would no longer price more than half of
// the models the current source provides: the previous file's models, or
// the built-in ones while only those are in force. The file is merged over
// the built-in prices, so no built-in model ever disappears; the rule
// catches a truncated or wrong file before it replaces the last good one.
func checkMassDrop(current *pricing.Catalogue, entries []pricing.Entry) error {
	var baseline []pricing.Entry
	for _, e := range current.Entries() {
		if e.Source != "builtin" {
			baseline = append(baseline, e)
		}
	}
	if len(baseline) == 0 {
		baseline = current.Entries()
	}
	file := pricing.NewCatalogue(entries, "check")
	kept := 0
	for _, e := range baseline {
		if _, ok := file.Lookup(e.Model); ok {
			kept++
		}
	}
	if err := pricing.CheckMassDrop(len(baseline), kept); err != nil {
		return apierr.Newf(apierr.ValidationFailed,
			"mass-drop rule: the file prices only %d of the %d models the current catalogue takes from its source; "+
				"an update that would drop more than half of them is refused", kept, len(baseline)).
			WithHint("the catalogue in force is unchanged; check that the file is complete")
	}
	return nil
}

// stampChanged marks changed models as updated at t and forgets removed ones.
func stampChanged(updated map[string]time.Time, next *pricing.Catalogue, changed []string, t time.Time) map[string]time.Time {
	out := maps.Clone(updated)
	if out == nil {
		out = map[string]time.Time{}
	}
	present := make(map[string]bool, next.Len())
	for _, e := range next.Entries() {
		present[e.Model] = true
	}
	for _, m := range changed {
		if present[m] {
			out[m] = t
		} else {
			delete(out, m)
		}
	}
	return out
}

// swap puts st in force and updates the status to match.
func (s *Syncer) swap(st postgres.CatalogueState) {
	s.opts.Catalogue.Store(st.Catalogue)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updated = st.UpdatedAt
	changed := st.ChangedModels
	if changed == nil {
		changed = []string{}
	}
	s.status.Mode, s.status.ChangedModels, s.status.SyncedAt = st.Mode, changed, st.ActivatedAt
	s.status.Models, s.status.Source, s.status.Version = st.Catalogue.Len(), st.Catalogue.Source(), st.Catalogue.Version()
}
