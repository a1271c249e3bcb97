package apiserver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/pricing"
)

func disagreements(dis []pricing.Disagreement) []wire.Disagreement {
	out := make([]wire.Disagreement, 0, len(dis))
	for _, d := range dis {
		v := make(map[string]json.Number, len(d.Values))
		for src, atto := range d.Values {
			v[src] = per1K(atto)
		}
		out = append(out, wire.Disagreement{Model: d.Model, Field: d.Field, Values: v})
	}
	return out
}

// periods lists an entry's base rates (id "base") and its periods; empty
// for a model with one price.
func periods(e pricing.Entry) []wire.Period {
	out := []wire.Period{}
	if len(e.Periods) == 0 {
		return out
	}
	all := append([]pricing.Period{{Label: "before or outside every period", Base: e.Base, LongContext: e.LongContext}}, e.Periods...)
	for i, p := range all {
		at := pricing.Entry{Base: p.Base, LongContext: p.LongContext}
		j := wire.Period{ID: p.ID(), Label: optText(p.Label), From: optTime(p.From), Until: optTime(p.Until),
			InputPer1K: per1K(p.Base.Input), OutputPer1K: per1K(p.Base.Output),
			CacheRead:   optPer1K(p.Base.CacheRead, p.Base.HasCacheRead),
			CacheWrite:  optPer1K(p.Base.CacheWrite, p.Base.HasCacheWrite),
			CacheWrite1: optPer1K(p.Base.CacheWrite1h, p.Base.HasCacheWrite1h), LongContext: longContext(at)}
		if i == 0 {
			j.ID = pricing.BasePeriod
		}
		if p.HasWindow {
			j.TimeOfDay = &wire.TimeOfDay{Start: hhmm(p.DayStart), End: hhmm(p.DayEnd), WeekdaysOnly: p.WeekdaysOnly}
		}
		out = append(out, j)
	}
	return out
}

func hhmm(min int) string { return fmt.Sprintf("%02d:%02d", min/60, min%60) }

func aliases(e pricing.Entry) []wire.Alias {
	out := []wire.Alias{}
	for _, a := range e.Aliases {
		out = append(out, wire.Alias{Name: a.Name, Retired: optText(a.Retired)})
	}
	return out
}

func per1K(atto int64) json.Number { return json.Number(pricing.FormatRatePer1K(atto)) }

func optPer1K(atto int64, published bool) *json.Number {
	if !published {
		return nil
	}
	n := per1K(atto)
	return &n
}

func optTokens(n int64) *int64 {
	if n <= 0 {
		return nil
	}
	return &n
}

func optText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := ts(t)
	return &s
}
