package apiserver

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/postgres"
)

// MetricsTopN bounds the model and agent labels: the N most expensive
// keep their own series, the rest are summed under "other".
const MetricsTopN = 20

var (
	descCalls   = prometheus.NewDesc("service_calls", "LLM calls in the window.", nil, nil)
	descCost    = prometheus.NewDesc("service_cost_usd", "Spend in USD in the window (metered and subscription).", nil, nil)
	descTokens  = prometheus.NewDesc("service_tokens", "Tokens (input and output) in the window.", nil, nil)
	descCached  = prometheus.NewDesc("service_cached_tokens", "Input tokens served from the prompt cache in the window.", nil, nil)
	descErrors  = prometheus.NewDesc("service_errors", "Calls that did not succeed in the window.", nil, nil)
	descModel   = prometheus.NewDesc("service_model_cost_usd", "Spend in USD in the window by model (top models, the rest under other).", []string{"model"}, nil)
	descAgent   = prometheus.NewDesc("service_agent_cost_usd", "Spend in USD in the window by agent (top agents, the rest under other).", []string{"agent"}, nil)
	descUtil    = prometheus.NewDesc("service_budget_utilization_percent", "Metered spend this UTC month as a percent of the budget.", nil, nil)
	descRemains = prometheus.NewDesc("service_budget_remaining_usd", "Budget left this UTC month in USD.", nil, nil)
	descBacklog = prometheus.NewDesc("service_merge_backlog",
		"Work waiting for an asynchronous merger: calls (rollups), runs (runs), queued alerts (alerts), for this project or the deployment.",
		[]string{"merger", "scope"}, nil)
	descLag = prometheus.NewDesc("service_merge_lag_seconds",
		"Age of the oldest item waiting for an asynchronous merger, for this project or the deployment.",
		[]string{"merger", "scope"}, nil)
	descTagValues = prometheus.NewDesc("service_tag_values",
		"Distinct values of a declared chargeback tag key counted under their own name (at most max_values).",
		[]string{"tag"}, nil)
	descTagOverflow = prometheus.NewDesc("service_tag_overflow_calls_total",
		"Calls counted under (other) since the tag key was declared, because the key held max_values values.",
		[]string{"tag"}, nil)
	descReads = prometheus.NewDesc("service_report_reads_total",
		"Report reads this instance has made since it started, by the server that answered: the read replica or the primary (with a replica configured only).",
		[]string{"server"}, nil)
)

// spendCollector computes the gauges at scrape time from the rollups:
// the same reads as the analytics reports, so the values match them.
type spendCollector struct {
	agents, models []analytics.Keyed
	budget         wire.BudgetState
	// lag is the mergers' latest snapshot (nil: no gauges), project the
	// project whose share is shown beside the deployment's.
	lag     *backlog.Snapshot
	project string
	// reads are this instance's report reads by replica and primary (nil:
	// no replica).
	reads *[2]int64
	// tags are the project's declared tag keys, with their values and
	// overflow (docs/tags.md).
	tags []postgres.TagKey
}

// Describe implements prometheus.Collector.
func (c spendCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCalls, descCost, descTokens, descCached, descErrors, descModel, descAgent, descUtil,
		descRemains, descBacklog, descLag, descReads, descTagValues, descTagOverflow} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c spendCollector) Collect(ch chan<- prometheus.Metric) {
	t := analytics.Total(c.agents)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descCalls, float64(t.Calls))
	gauge(descCost, usd(t.CostNano))
	gauge(descTokens, float64(t.TotalTokens))
	gauge(descCached, float64(t.CachedTokens))
	gauge(descErrors, float64(t.Calls-t.SuccessCalls))
	for _, k := range topN(c.models) {
		gauge(descModel, usd(k.CostNano), k.Key)
	}
	for _, k := range topN(c.agents) {
		gauge(descAgent, usd(k.CostNano), k.Key)
	}
	if b := c.budget; b.Budget != nil {
		gauge(descUtil, *b.UtilizationPercent)
		rem := b.Remaining.USD()
		gauge(descRemains, rem)
	}
	if c.lag != nil {
		for _, m := range backlog.Mergers {
			all, mine := c.lag.Lags[m].ProjectLag, c.lag.Project(m, c.project)
			gauge(descBacklog, float64(all.Backlog), string(m), "deployment")
			gauge(descBacklog, float64(mine.Backlog), string(m), "project")
			gauge(descLag, all.Seconds, string(m), "deployment")
			gauge(descLag, mine.Seconds, string(m), "project")
		}
	}
	for _, k := range c.tags {
		gauge(descTagValues, float64(k.Values), k.Key)
		ch <- prometheus.MustNewConstMetric(descTagOverflow, prometheus.CounterValue, float64(k.OverflowCalls), k.Key)
	}
	if c.reads != nil {
		ch <- prometheus.MustNewConstMetric(descReads, prometheus.CounterValue, float64(c.reads[0]), "replica")
		ch <- prometheus.MustNewConstMetric(descReads, prometheus.CounterValue, float64(c.reads[1]), "primary")
	}
}

// usd is a gauge value: Prometheus samples are floats, so exactness ends here.
func usd(nano int64) float64 { return float64(nano) / 1e9 }

// topN keeps the MetricsTopN most expensive keys (rows come sorted by
// cost) and sums the rest under "other".
func topN(rows []analytics.Keyed) []analytics.Keyed {
	if len(rows) <= MetricsTopN {
		return rows
	}
	other := analytics.Keyed{Key: "other"}
	for _, k := range rows[MetricsTopN:] {
		other.Add(k.Sums)
	}
	out := append([]analytics.Keyed{}, rows[:MetricsTopN]...)
	for i := range out {
		if out[i].Key == "other" { // a real key named other joins the sum
			other.Add(out[i].Sums)
			out = append(out[:i], out[i+1:]...)
			break
		}
	}
	return append(out, other)
}

// metrics is GET /v1/metrics: Prometheus text format 0.0.4 of windowed
// gauges (range, default 24h).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if q.Get("range") == "" {
		q.Set("range", string(analytics.Range24h))
		r.URL.RawQuery = q.Encode()
	}
	rp, err := s.parseReport(r, analytics.AllRanges)
	if err != nil {
		return err
	}
	rp.Agent, rp.Tag = "", "" // the gauges are of the whole project
	res, err := s.reports().ByKeys(r.Context(), rp, 0, "agent", "model")
	if err != nil {
		return err
	}
	tags, err := s.DB.Tags(r.Context(), rp.Project)
	if err != nil {
		return err
	}
	state, err := s.budgetState(r, rp.Project)
	if err != nil {
		return err
	}
	reg := prometheus.NewPedanticRegistry()
	c := spendCollector{agents: res[0].Keys, models: res[1].Keys, budget: state, project: rp.Project, tags: tags}
	if s.Backlog != nil {
		snap := s.Backlog.Snapshot()
		c.lag = &snap
	}
	if replica, primary, ok := s.DB.ReplicaReads(); ok {
		c.reads = &[2]int64{replica, primary}
	}
	if err := reg.Register(c); err != nil {
		return err
	}
	families, err := reg.Gather()
	if err != nil {
		return apierr.Wrap(err, apierr.Internal, "metrics could not be gathered")
	}
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	w.Header().Set("Content-Type", string(format))
	w.WriteHeader(http.StatusOK)
	enc := expfmt.NewEncoder(w, format)
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			return nil // the status is sent; the client sees a cut body
		}
	}
	return nil
}
