package benchdata

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Day is one day slot's calls in timestamp order and the outcomes its runs
// declared.
type Day struct {
	Events   []event.Event
	Outcomes []Outcome
}

// Outcome is a run's declared result and when it was declared.
type Outcome struct {
	TraceID string
	Success bool
	Label   string
	At      time.Time
}

// Run shape: 1 to maxRunCalls calls, about ten on average (so ten million
// calls make about a million runs), spans nested up to maxDepth.
const (
	maxRunCalls = 40
	maxDepth    = 4
)

// Generate returns day slot d (0 is the oldest) of the dataset, its calls
// stamped with projectID and priced with cat. The same spec, anchor and d
// always give the same day, so days can be generated in any order or in
// parallel.
func Generate(s Spec, cat *pricing.Catalogue, projectID string, anchor time.Time, d int) Day {
	g := &dayGen{spec: s, cat: cat, project: projectID, day: d, start: s.DayStart(anchor, d),
		rng: rand.New(rand.NewPCG(s.Seed, uint64(d)+1))}
	budget := s.dayEvents(d)
	g.events = make([]event.Event, 0, budget)
	lo, hi := s.daySessions(d)
	for run := 0; len(g.events) < budget; run++ {
		n := min(runLength(g.rng), budget-len(g.events))
		g.run(lo+g.rng.IntN(hi-lo), run, n)
	}
	slices.SortStableFunc(g.events, func(a, b event.Event) int { return a.Timestamp.Compare(b.Timestamp) })
	for i := range g.events {
		g.events[i].EventID = s.Prefix + fmt.Sprintf("ev-%02d-%07d", d, i)
	}
	return Day{Events: g.events, Outcomes: g.outcomes}
}

// runLength draws 1–40 calls with a long tail, mean about ten.
func runLength(rng *rand.Rand) int {
	return min(1+int(rng.ExpFloat64()*9), maxRunCalls)
}

type dayGen struct {
	spec     Spec
	cat      *pricing.Catalogue
	project  string
	day      int
	start    time.Time
	rng      *rand.Rand
	events   []event.Event
	outcomes []Outcome
}

// session is what one session fixes: a session is one user and one agent on
// one day, active within about an hour of its start.
type session struct {
	id, user, agent int
	start           time.Time
}

func (g *dayGen) session(s int) session {
	h := mix(g.spec.Seed ^ uint64(s)*0x9e3779b97f4a7c15)
	offset := time.Duration((h>>32)%(21*3600)) * time.Second
	return session{id: s, user: int(h % uint64(g.spec.Users)), agent: int((h >> 16) % uint64(g.spec.Agents)),
		start: g.start.Add(offset)}
}

// run appends one run of n calls of session s.
func (g *dayGen) run(s, run, n int) {
	sess := g.session(s)
	trace := g.spec.Prefix + TraceID(g.day, run)
	workflow, steps := "", []string(nil)
	if g.rng.IntN(20) != 0 { // one run in twenty declares no workflow
		w := (sess.agent*3 + g.rng.IntN(3)) % g.spec.Workflows
		workflow, steps = WorkflowName(w), workflowSteps(w)
	}
	ts := sess.start.Add(time.Duration(g.rng.IntN(3600_000)) * time.Millisecond)
	depth := make([]int, n)
	failed := false
	for i := range n {
		ev := g.call(sess, ts)
		ev.TraceID, ev.Workflow, ev.SpanID = trace, workflow, fmt.Sprintf("sp-%02d", i)
		if i > 0 {
			p := g.parent(depth[:i])
			depth[i] = depth[p] + 1
			ev.ParentSpanID = fmt.Sprintf("sp-%02d", p)
		}
		if steps != nil {
			ev.StepName = steps[i%len(steps)]
			if i > 0 && g.rng.IntN(7) == 0 { // a retry or loop repeats the step
				ev.StepName = g.events[len(g.events)-1].StepName
			}
		}
		failed = failed || !ev.Success
		g.events = append(g.events, ev)
		ts = ts.Add(time.Duration(latencyOf(ev)+100+int64(g.rng.IntN(15_000))) * time.Millisecond)
	}
	if g.rng.IntN(100) < 85 { // most runs declare an outcome
		ok := g.rng.IntN(10) < 9
		if failed {
			ok = g.rng.IntN(10) < 4
		}
		g.outcomes = append(g.outcomes, Outcome{TraceID: trace, Success: ok,
			Label: outcomeLabels[g.rng.IntN(len(outcomeLabels))], At: ts.Add(time.Second)})
	}
}

// parent picks the parent span of the next call among the last few calls
// not yet at the deepest level, or the root.
func (g *dayGen) parent(depth []int) int {
	if g.rng.IntN(10) < 3 {
		return 0
	}
	var cand []int
	for j := max(0, len(depth)-3); j < len(depth); j++ {
		if depth[j] < maxDepth {
			cand = append(cand, j)
		}
	}
	if len(cand) == 0 {
		return 0
	}
	return cand[g.rng.IntN(len(cand))]
}

func latencyOf(ev event.Event) int64 {
	if ev.LatencyMS == nil {
		return 800
	}
	return *ev.LatencyMS
}

// workflowSteps are workflow w's step names, three to six of them.
func workflowSteps(w int) []string {
	steps := make([]string, 3+w%4)
	for j := range steps {
		steps[j] = stepNames[(w+j*3)%len(stepNames)]
	}
	return steps
}

// call draws one call of the session's agent at ts, priced.
func (g *dayGen) call(sess session, ts time.Time) event.Event {
	r := g.rng
	model := Models[sess.agent%knownModels]
	if r.IntN(4) == 0 {
		model = Models[r.IntN(len(Models))]
	}
	ev := event.Event{ProjectID: g.project, AgentName: AgentName(sess.agent), Model: model,
		Timestamp: ts.Truncate(time.Millisecond).UTC(), Success: true, Streaming: flag(r.IntN(2) == 0),
		UserID: UserID(sess.user), SessionID: g.spec.Prefix + SessionID(sess.id), Billing: event.BillingAPI, Source: "batch"}
	ev.InputTokens = logUniform(r, 300, 30_000)
	ev.OutputTokens = logUniform(r, 20, 3_000)
	g.cache(&ev)
	if r.IntN(4) == 0 { // one call in four is a tool call
		ev.ToolName = Tools[(sess.agent+r.IntN(4))%len(Tools)]
	}
	if r.IntN(100) < 3 {
		ev.Success, ev.Error = false, errorTexts[r.IntN(len(errorTexts))]
	}
	if r.IntN(25) != 0 { // a few clients send no latency
		ms := 300 + ev.OutputTokens*8 + ev.InputTokens/50 + int64(r.IntN(2000))
		ev.LatencyMS = &ms
	}
	if sess.user%5 == 0 { // one user in five is on a flat plan
		ev.Billing = event.BillingSubscription
	}
	ev.Metadata = metadata(ev, sess.user)
	ev.TotalTokens = ev.InputTokens + ev.OutputTokens
	Price(g.cat, &ev)
	return ev
}

// cache adds cache reads and writes where the model publishes their rates.
func (g *dayGen) cache(ev *event.Event) {
	e, ok := g.cat.Lookup(ev.Model)
	if !ok {
		return
	}
	r := g.rng
	if e.Base.HasCacheRead && r.IntN(100) < 65 {
		ev.CachedTokens = ev.InputTokens * int64(30+r.IntN(60)) / 100
	}
	rest := ev.InputTokens - ev.CachedTokens
	if e.Base.HasCacheWrite && r.IntN(4) == 0 {
		ev.CacheWriteTokens = rest * int64(20+r.IntN(60)) / 100
		rest -= ev.CacheWriteTokens
	}
	if e.Base.HasCacheWrite1h && r.IntN(12) == 0 {
		ev.CacheWrite1hTokens = rest * int64(20+r.IntN(60)) / 100
	}
}

// metadata is a call's metadata: its user and session, its billing when
// on a flat plan, and the user's team (the TagKey chargeback tag).
func metadata(ev event.Event, user int) []byte {
	if ev.Billing == event.BillingSubscription {
		return fmt.Appendf(nil, `{"user_id":%q,"session_id":%q,"billing":"subscription",%q:%q}`,
			ev.UserID, ev.SessionID, TagKey, TeamName(user))
	}
	return fmt.Appendf(nil, `{"user_id":%q,"session_id":%q,%q:%q}`, ev.UserID, ev.SessionID, TagKey, TeamName(user))
}

// logUniform draws an integer in [lo, hi) whose logarithm is uniform, so
// small prompts are common and large ones rare but present.
func logUniform(r *rand.Rand, lo, hi int64) int64 {
	return int64(float64(lo) * math.Exp(r.Float64()*math.Log(float64(hi)/float64(lo))))
}

// mix is SplitMix64's finaliser: a well-spread hash of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Price sets what the cost processor sets on a call sent without a cost:
// the catalogue's price (with the rates of the dated period in force at the
// call, named in PricePeriod) as cost and catalogue cost, priced, the
// catalogue version and the call's cache savings; an unknown model costs 0
// with catalogue cost −1 and no savings.
func Price(cat *pricing.Catalogue, ev *event.Event) {
	ev.PriceVersion = cat.Version()
	entry, ok := cat.Lookup(ev.Model)
	ev.Priced = ok
	ev.ReadSavingsNano, ev.WritePremiumNano = 0, 0
	if !ok {
		ev.CostNano, ev.CatalogueCostNano = 0, -1
		return
	}
	entry, ev.PricePeriod = entry.At(ev.Timestamp)
	u := pricing.Usage{Input: ev.InputTokens, Output: ev.OutputTokens, Cached: ev.CachedTokens,
		CacheWrite: ev.CacheWriteTokens, CacheWrite1h: ev.CacheWrite1hTokens}
	b, sv := entry.Price(u), entry.Savings(u)
	ev.CostNano, ev.CatalogueCostNano = b.Total, b.Total
	ev.ReadSavingsNano, ev.WritePremiumNano = sv.Read, sv.WritePremium
}

// flag is b as the optional boolean the event carries (streaming is
// unknown, nil, only for agents that do not say).
func flag(b bool) *bool { return &b }
