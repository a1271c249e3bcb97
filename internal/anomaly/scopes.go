package anomaly

import (
	"sort"
	"time"

	"github.com/llmcost/llmcost/internal/forecast"
)

// Scoped is an anomaly of the project (Agent "") or of one agent.
type Scoped struct {
	Agent string
	Anomaly
}

// Project reports whether the anomaly is of the project's spend.
func (s Scoped) Project() bool { return s.Agent == "" }

// Scope is the anomaly's key among a day's alerts: "project", or "agent:"
// and the agent's name.
func (s Scoped) Scope() string {
	if s.Project() {
		return "project"
	}
	return "agent:" + s.Agent
}

// FindScopes judges the project (the sum of its agents) and each agent
// over the days of [from, to), from each agent's daily spend. The result
// is ordered by day, the project before its agents, then by agent name.
func FindScopes(byAgent map[string][]forecast.Day, from, to time.Time) []Scoped {
	total := map[time.Time]int64{}
	var out []Scoped
	for agent, days := range byAgent {
		for _, d := range days {
			total[forecast.DayOf(d.Date)] += d.Nano
		}
		for _, a := range Find(days, from, to) {
			out = append(out, Scoped{Agent: agent, Anomaly: a})
		}
	}
	project := make([]forecast.Day, 0, len(total))
	for d, v := range total {
		project = append(project, forecast.Day{Date: d, Nano: v})
	}
	for _, a := range Find(project, from, to) {
		out = append(out, Scoped{Anomaly: a})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Day.Equal(b.Day) {
			return a.Day.Before(b.Day)
		}
		if a.Project() != b.Project() {
			return a.Project()
		}
		return a.Agent < b.Agent
	})
	return out
}
