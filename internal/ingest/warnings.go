package ingest

import (
	"github.com/llmcost/llmcost/internal/pricing"
)

// Warning is a note on an accepted event: it was stored, but probably not
// as the client meant (an unknown model is stored unpriced).
type Warning struct {
	Index   int    `json:"index"`
	EventID string `json:"event_id"`
	Field   string `json:"field"`
	Message string `json:"message"`
	// Suggestions are catalogue names close to the value, best first.
	Suggestions []string `json:"suggestions,omitempty"`
}

// maxSuggestions bounds the close names one warning lists.
const maxSuggestions = 3

// UnknownModels warns about each accepted event whose model the catalogue
// does not know, with the close names it does know ("claude-sonet-4-5" →
// claude-sonnet-4-5). The event is still stored, unpriced, and can be
// re-priced once the catalogue knows the model; a client-sent cost is
// kept either way. Each distinct model is looked up once per batch.
func (b *Batch) UnknownModels(cat *pricing.Catalogue) []Warning {
	if cat == nil {
		return nil
	}
	var out []Warning
	known := map[string]bool{}
	suggest := map[string][]string{}
	for i, ev := range b.Events {
		ok, seen := known[ev.Model]
		if !seen {
			_, ok = cat.Lookup(ev.Model)
			known[ev.Model] = ok
			if !ok {
				suggest[ev.Model] = cat.Suggest(ev.Model, maxSuggestions)
			}
		}
		if ok {
			continue
		}
		msg := "unknown model: stored unpriced (cost 0, priced false) until the catalogue knows it"
		if ev.CostProvided {
			msg = "unknown model: the cost sent is stored as sent; the catalogue cannot check it"
		}
		if len(suggest[ev.Model]) > 0 {
			msg += "; did you mean one of the suggestions?"
		}
		out = append(out, Warning{Index: b.Index[i], EventID: ev.EventID, Field: "model",
			Message: msg, Suggestions: suggest[ev.Model]})
	}
	return out
}
