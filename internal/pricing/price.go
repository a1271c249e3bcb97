package pricing

// Rates are per-token prices in atto-USD. Input and Output are always
// published; the Has flags say whether the provider publishes the cache
// rates, because an unpublished cache rate means "billed as plain input"
// (zero savings), not "free".
type Rates struct {
	Input        int64 // uncached prompt tokens
	Output       int64 // completion tokens, reasoning included
	CacheRead    int64 // prompt tokens served from the cache
	CacheWrite   int64 // prompt tokens written to a 5-minute cache
	CacheWrite1h int64 // prompt tokens written to a 1-hour cache

	HasCacheRead    bool
	HasCacheWrite   bool
	HasCacheWrite1h bool
}

// Tier holds the long-context rates that replace the base rates for a whole
// call whose prompt exceeds ThresholdTokens. An Input or Output of zero, or a
// cache rate whose Has flag is false, means the tier does not publish that
// rate and the base rate applies.
type Tier struct {
	ThresholdTokens int64
	Rates
}

// Entry is one priced model of the catalogue.
type Entry struct {
	Model           string // canonical catalogue name, e.g. "claude-sonnet-4-5"
	Provider        string // "anthropic", "openai", "google", ...
	Mode            string // "chat", "completion" or "responses"
	Base            Rates
	LongContext     *Tier  // nil when the model has no long-context pricing
	MaxInputTokens  int64  // 0 when unknown
	MaxOutputTokens int64  // 0 when unknown
	DeprecationDate string // YYYY-MM-DD, empty when not announced
	Replacement     string // suggested successor, may be empty
	Source          string // "builtin", "litellm", ...
	// Periods are dated and time-of-day rates that replace Base and
	// LongContext while in force (see At); empty for a model with one price.
	Periods []Period
	// Aliases are other names the provider serves with this model:
	// "-latest" and family aliases, and retired names.
	Aliases []Alias
}

// Alias is another name of a model. A Retired alias is a name the provider
// retired and now serves with this model (its successor); Retired is the
// retirement date (YYYY-MM-DD).
type Alias struct {
	Name    string
	Retired string
}

// Usage is the token count of one call in our semantics: Input is the whole
// prompt; Cached, CacheWrite (5-minute) and CacheWrite1h are disjoint parts
// of it; Output includes reasoning tokens, so reasoning is priced at the
// output rate and never added a second time.
type Usage struct {
	Input        int64
	Output       int64
	Cached       int64
	CacheWrite   int64
	CacheWrite1h int64
}

// Breakdown is the cost of one call in nano-USD. Each part is rounded
// half-up on its own; Total is the exact sum rounded once, so it can differ
// from the sum of the parts by a nano-dollar or two.
type Breakdown struct {
	Input      int64 // uncached prompt tokens
	CacheRead  int64
	CacheWrite int64 // 5-minute and 1-hour writes together
	Output     int64
	Total      int64
	// LongContext reports that the long-context tier priced the call.
	LongContext bool
	// Rates are the rates actually applied, with unpublished cache rates
	// already replaced by their fallbacks (the Has flags keep what the
	// provider publishes).
	Rates Rates
	// Overflow reports a result beyond int64 nano-USD (about $9.2e9);
	// the affected fields are then 0 and the call must be refused (Check):
	// money is exact or not stored, never clamped.
	Overflow bool
}

// Savings is what prompt caching changed for one call, in nano-USD, measured
// against billing every cached or written token at the full input rate.
type Savings struct {
	Read         int64 // cached × (input − cache-read rate)
	WritePremium int64 // writes × (write rate − input rate)
	Net          int64 // Read − WritePremium, negative when caching lost money
}

// EffectiveRates returns the rates that price a call with inputTokens prompt
// tokens: the long-context tier for the whole call when the prompt exceeds
// its threshold (base rates where the tier publishes none), then the cache
// fallbacks: cache read at the input rate, 5-minute write at the input rate
// and 1-hour write at the 5-minute write rate when unpublished.
func (e Entry) EffectiveRates(inputTokens int64) (Rates, bool) {
	r := e.Base
	tier := e.LongContext != nil && inputTokens > e.LongContext.ThresholdTokens
	if tier {
		t := e.LongContext.Rates
		if t.Input > 0 {
			r.Input = t.Input
		}
		if t.Output > 0 {
			r.Output = t.Output
		}
		if t.HasCacheRead {
			r.CacheRead, r.HasCacheRead = t.CacheRead, true
		}
		if t.HasCacheWrite {
			r.CacheWrite, r.HasCacheWrite = t.CacheWrite, true
		}
		if t.HasCacheWrite1h {
			r.CacheWrite1h, r.HasCacheWrite1h = t.CacheWrite1h, true
		}
	}
	if !r.HasCacheRead {
		r.CacheRead = r.Input
	}
	if !r.HasCacheWrite {
		r.CacheWrite = r.Input
	}
	if !r.HasCacheWrite1h {
		r.CacheWrite1h = r.CacheWrite
	}
	return r, tier
}

// clean clamps negative counts to zero and returns the uncached prompt
// tokens. Price never fails: ingest validates that the cache parts fit in
// the prompt; if they do not, the uncached part is taken as zero.
func (u Usage) clean() (Usage, uint64) {
	pos := func(v int64) int64 { return max(v, 0) }
	u = Usage{pos(u.Input), pos(u.Output), pos(u.Cached), pos(u.CacheWrite), pos(u.CacheWrite1h)}
	parts := uint64(u.Cached) + uint64(u.CacheWrite) + uint64(u.CacheWrite1h)
	if parts >= uint64(u.Input) {
		return u, 0
	}
	return u, uint64(u.Input) - parts
}

// Price computes the exact cost of one call:
//
//	(input − cached − writes) × input rate + cached × cache-read rate
//	+ 5m writes × write rate + 1h writes × 1h write rate + output × output rate
//
// with the rates of EffectiveRates.
func (e Entry) Price(u Usage) Breakdown {
	u, uncached := u.clean()
	r, tier := e.EffectiveRates(u.Input)
	var in, read, write, out u128
	in.addMul(uncached, uint64(r.Input))
	read.addMul(uint64(u.Cached), uint64(r.CacheRead))
	write.addMul(uint64(u.CacheWrite), uint64(r.CacheWrite))
	write.addMul(uint64(u.CacheWrite1h), uint64(r.CacheWrite1h))
	out.addMul(uint64(u.Output), uint64(r.Output))
	total := in
	total.add(read)
	total.add(write)
	total.add(out)

	b := Breakdown{LongContext: tier, Rates: r}
	ok := [5]bool{}
	b.Input, ok[0] = in.nano()
	b.CacheRead, ok[1] = read.nano()
	b.CacheWrite, ok[2] = write.nano()
	b.Output, ok[3] = out.nano()
	b.Total, ok[4] = total.nano()
	b.Overflow = ok != [5]bool{true, true, true, true, true}
	return b
}

// Savings computes the cache report figures for one call: read savings
// (zero when the model publishes no cache-read rate) and the write premium
// (zero when it publishes no write rate), in nano-USD, rounded half away
// from zero.
func (e Entry) Savings(u Usage) Savings {
	u, _ = u.clean()
	r, _ := e.EffectiveRates(u.Input)
	var read, prem s128
	read.addMul(uint64(u.Cached), r.Input-r.CacheRead)
	prem.addMul(uint64(u.CacheWrite), r.CacheWrite-r.Input)
	prem.addMul(uint64(u.CacheWrite1h), r.CacheWrite1h-r.Input)
	net := read
	net.sub(prem)
	var s Savings
	s.Read, _ = read.nano()
	s.WritePremium, _ = prem.nano()
	s.Net, _ = net.nano()
	return s
}
