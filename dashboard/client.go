package dashboard

import (
	"net/http"
	"net/url"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
)

// client is the API as one browser request reaches it. Every route the
// dashboard uses is one method here, with its request and answer types:
// page code names methods, never paths, and a route missing from the
// API's table is an error on the first call, not a page that reads
// nothing.
type client struct {
	api  API
	from *http.Request
	as   *access.Principal
}

// call runs one route and decodes its answer as T.
func call[T any](c client, method, route string, vars map[string]string, q url.Values, body any) (T, error) {
	var out T
	err := c.api.Call(c.from, c.as, Call{Method: method, Route: route, Vars: vars, Query: q, Body: body}, &out)
	return out, err
}

// send runs one route whose answer the dashboard does not read.
func (c client) send(method, route string, vars map[string]string, body any) error {
	return c.api.Call(c.from, c.as, Call{Method: method, Route: route, Vars: vars, Body: body}, nil)
}

func project(id string) map[string]string { return map[string]string{"project_id": id} }

// Accounts.

func (c client) login(req wire.LoginRequest) (wire.Tokens, error) {
	return call[wire.Tokens](c, http.MethodPost, "/v1/auth/login", nil, nil, req)
}

func (c client) register(req wire.RegisterRequest) (wire.Registered, error) {
	return call[wire.Registered](c, http.MethodPost, "/v1/auth/register", nil, nil, req)
}

func (c client) logout() error { return c.send(http.MethodPost, "/v1/auth/logout", nil, nil) }

func (c client) policies() (wire.Policies, error) {
	return call[wire.Policies](c, http.MethodGet, "/v1/auth/policies/current", nil, nil, nil)
}

func (c client) projects() (wire.ProjectList, error) {
	return call[wire.ProjectList](c, http.MethodGet, "/v1/projects", nil, nil, nil)
}

// Reports of the picked project and range.

func (c client) full(q wire.ReportQuery) (wire.FullAnalytics, error) {
	return call[wire.FullAnalytics](c, http.MethodGet, "/v1/analytics/full", nil, q.Values(), nil)
}

func (c client) cache(q wire.ReportQuery) (wire.CacheReport, error) {
	return call[wire.CacheReport](c, http.MethodGet, "/v1/analytics/cache", nil, q.Values(), nil)
}

func (c client) models(q wire.ReportQuery) ([]wire.ModelRow, error) {
	return call[[]wire.ModelRow](c, http.MethodGet, "/v1/analytics/models", nil, q.Values(), nil)
}

func (c client) byDimension(dim string, q wire.ReportQuery) ([]wire.DimensionRow, error) {
	return call[[]wire.DimensionRow](c, http.MethodGet, "/v1/analytics/by/{dimension}",
		map[string]string{"dimension": dim}, q.Values(), nil)
}

func (c client) tags(projectID string) (wire.TagList, error) {
	return call[wire.TagList](c, http.MethodGet, "/v1/projects/{project_id}/tags", project(projectID), nil, nil)
}

func (c client) agentSummary(q wire.ReportQuery) ([]wire.AgentSummaryRow, error) {
	return call[[]wire.AgentSummaryRow](c, http.MethodGet, "/v1/analytics/agents/summary", nil, q.Values(), nil)
}

func (c client) agent(name string, q wire.ReportQuery) (wire.AgentDetail, error) {
	return call[wire.AgentDetail](c, http.MethodGet, "/v1/analytics/agents/{agent_name:.+}",
		map[string]string{"agent_name": name}, q.Values(), nil)
}

func (c client) workflows(q wire.ReportQuery) ([]wire.WorkflowRow, error) {
	return call[[]wire.WorkflowRow](c, http.MethodGet, "/v1/analytics/workflows", nil, q.Values(), nil)
}

func (c client) outcomes(q wire.ReportQuery) ([]wire.OutcomeRow, error) {
	return call[[]wire.OutcomeRow](c, http.MethodGet, "/v1/analytics/workflows/outcomes", nil, q.Values(), nil)
}

func (c client) steps(q wire.ReportQuery) ([]wire.StepRow, error) {
	return call[[]wire.StepRow](c, http.MethodGet, "/v1/analytics/workflows/steps", nil, q.Values(), nil)
}

func (c client) repeatedWork(q wire.ReportQuery) ([]wire.RepeatedWorkRow, error) {
	return call[[]wire.RepeatedWorkRow](c, http.MethodGet, "/v1/analytics/workflows/repeated-work", nil, q.Values(), nil)
}

func (c client) distribution(q wire.ReportQuery) (wire.Distribution, error) {
	return call[wire.Distribution](c, http.MethodGet, "/v1/analytics/workflows/distribution", nil, q.Values(), nil)
}

func (c client) traces(q wire.ReportQuery) ([]wire.TraceRow, error) {
	return call[[]wire.TraceRow](c, http.MethodGet, "/v1/analytics/traces", nil, q.Values(), nil)
}

func (c client) trace(id string, q wire.ReportQuery) (wire.TraceDetail, error) {
	return call[wire.TraceDetail](c, http.MethodGet, "/v1/analytics/traces/{trace_id}",
		map[string]string{"trace_id": id}, q.Values(), nil)
}

func (c client) compliance(q wire.ReportQuery) (wire.Compliance, error) {
	return call[wire.Compliance](c, http.MethodGet, "/v1/guardrails/compliance", nil, q.Values(), nil)
}

func (c client) optimizations(q wire.ReportQuery) ([]wire.Optimization, error) {
	return call[[]wire.Optimization](c, http.MethodGet, "/v1/optimizations", nil, q.Values(), nil)
}

func (c client) optimizationSummary(q wire.ReportQuery) (wire.OptimizationSummary, error) {
	return call[wire.OptimizationSummary](c, http.MethodGet, "/v1/optimizations/summary", nil, q.Values(), nil)
}

// Settings of one project.

func (c client) budgetState(projectID string) (wire.BudgetState, error) {
	return call[wire.BudgetState](c, http.MethodGet, "/v1/projects/{project_id}/budget-state", project(projectID), nil, nil)
}

func (c client) putBudget(projectID string, req wire.BudgetRequest) error {
	return c.send(http.MethodPut, "/v1/projects/{project_id}/budget", project(projectID), req)
}

func (c client) retention(projectID string) (wire.Retention, error) {
	return call[wire.Retention](c, http.MethodGet, "/v1/projects/{project_id}/retention", project(projectID), nil, nil)
}

func (c client) putRetention(projectID string, req wire.RetentionRequest) error {
	return c.send(http.MethodPut, "/v1/projects/{project_id}/retention", project(projectID), req)
}

func (c client) members(projectID string) (wire.MemberList, error) {
	return call[wire.MemberList](c, http.MethodGet, "/v1/projects/{project_id}/members", project(projectID), nil, nil)
}

func (c client) invite(projectID string, req wire.InviteRequest) (wire.Invited, error) {
	return call[wire.Invited](c, http.MethodPost, "/v1/projects/{project_id}/members", project(projectID), nil, req)
}

func (c client) webhook(projectID string) (wire.Webhook, error) {
	return call[wire.Webhook](c, http.MethodGet, "/v1/projects/{project_id}/webhook", project(projectID), nil, nil)
}

func (c client) putWebhook(projectID string, req wire.WebhookRequest) error {
	return c.send(http.MethodPut, "/v1/projects/{project_id}/webhook", project(projectID), req)
}

func (c client) testWebhook(projectID string) (wire.WebhookTest, error) {
	return call[wire.WebhookTest](c, http.MethodPost, "/v1/projects/{project_id}/webhook/test", project(projectID), nil, nil)
}

func (c client) rotateKey(projectID string) (wire.KeyRotated, error) {
	return call[wire.KeyRotated](c, http.MethodPost, "/v1/projects/{project_id}/api-key/rotate", project(projectID), nil, nil)
}

// Reconciliation.

func (c client) reconciliation(projectID, rng string) (wire.ReconReport, error) {
	return call[wire.ReconReport](c, http.MethodGet, "/v1/reconciliation", nil,
		url.Values{"project_id": {projectID}, "range": {rng}}, nil)
}

// Provider connections of one project.

func connection(projectID, provider string) map[string]string {
	return map[string]string{"project_id": projectID, "provider": provider}
}

func (c client) connections(projectID string) (wire.ConnectionList, error) {
	return call[wire.ConnectionList](c, http.MethodGet, "/v1/projects/{project_id}/connections", project(projectID), nil, nil)
}

func (c client) putConnection(projectID, provider string, req wire.ConnectionRequest) (wire.ConnectionRead, error) {
	return call[wire.ConnectionRead](c, http.MethodPut, "/v1/projects/{project_id}/connections/{provider}",
		connection(projectID, provider), nil, req)
}

func (c client) syncConnection(projectID, provider string) (wire.ConnectionRead, error) {
	return call[wire.ConnectionRead](c, http.MethodPost, "/v1/projects/{project_id}/connections/{provider}/sync",
		connection(projectID, provider), nil, nil)
}

func (c client) deleteConnection(projectID, provider string) error {
	return c.send(http.MethodDelete, "/v1/projects/{project_id}/connections/{provider}", connection(projectID, provider), nil)
}
