package apiserver

import (
	"github.com/llmcost/llmcost/dashboard"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/hostext"
)

// The one route table: every route the origin serves, with the guard that
// states the credential and permission it needs (guards.go). Paths use one
// name per thing ({project_id}, {user_id}). Slots are the pipeline's routes:
// the costevents receiver fills them while it runs (Fill); an empty slot
// answers 503 with Retry-After. A known path with another method answers
// 405 with Allow, an unknown path 404, both in the error envelope.

// mirrorRoutes are served by the origin and the mirror alike. Model names
// may contain "/" and ":" (raw or URL-encoded), so {model_name} spans
// segments and comes after the specific /v1/pricing paths.
func (s *Server) mirrorRoutes() []route {
	return []route{
		get("/v1/health", public, s.health),
		get("/v1/pricing", public, s.listPricing),
		get("/v1/pricing/deprecations", public, s.deprecations),
		get("/v1/pricing/sync/status", public, s.syncStatus),
		get("/v1/pricing/versions/{version}", public, s.pricingVersion),
		get("/v1/pricing/{model_name:.+}", public, s.modelPricing),
		post("/v1/estimate", public, s.estimate),
	}
}

// originRoutes need the database. Specific paths come before parameterised
// ones (/v1/projects/me before /v1/projects/{project_id}). Agent names may
// contain "/" (sent as %2F, which the router sees decoded), so
// {agent_name} spans segments like {model_name}, after agents/summary.
func (s *Server) originRoutes() []route {
	return []route{
		post("/v1/pricing/import", deploymentAdmin, s.importPricing),
		post("/v1/pricing/reprice", deploymentAdmin, s.reprice),

		post("/v1/events/batch", apiKey(access.CreateEvents), s.slot(hostext.SlotEventsBatch)),
		post("/v1/otlp/v1/logs", apiKey(access.CreateEvents), s.slot(hostext.SlotOTLPLogs)),
		post("/v1/otlp/v1/metrics", apiKey(access.CreateEvents), s.slot(hostext.SlotOTLPMetrics)),
		post("/v1/otlp/v1/traces", apiKey(access.CreateEvents), s.slot(hostext.SlotOTLPTraces)),
		get("/v1/events", projectParam(access.ViewAnalytics), s.listEvents),

		post("/v1/auth/register", public, s.register),
		post("/v1/auth/login", public, s.login),
		post("/v1/auth/google", public, s.googleSignIn),
		post("/v1/auth/github", public, s.githubSignIn),
		post("/v1/auth/refresh", public, s.refresh),
		post("/v1/auth/logout", session, s.logout),
		post("/v1/auth/logout-all", session, s.logoutAll),
		get("/v1/auth/me", session, s.me),
		patch("/v1/auth/me", session, s.updateMe),
		post("/v1/auth/password/change", session, s.changePassword),
		post("/v1/auth/password/reset-request", public, s.resetRequest),
		post("/v1/auth/password/reset", public, s.resetPassword),
		post("/v1/auth/verify-email", public, s.verifyEmail),
		post("/v1/auth/verify-email/resend", session, s.resendVerification),
		get("/v1/auth/policies/current", public, s.currentPolicies),
		get("/v1/auth/policies/status", session, s.policyStatus),
		post("/v1/auth/policies/accept", session, s.acceptPolicies),

		post("/v1/projects", session, s.createProject),
		get("/v1/projects", session, s.listProjects),
		get("/v1/projects/me", apiKey(access.ViewAnalytics), s.keyProject),
		get("/v1/projects/invitations/pending", verifiedSession, s.pendingInvitations),
		get("/v1/projects/{project_id}", memberOrKey(access.ViewAnalytics), s.getProject),
		patch("/v1/projects/{project_id}", memberOrKey(access.EditProject), s.updateProject),
		del("/v1/projects/{project_id}", memberOrKey(access.DeleteProject), s.deleteProject),
		post("/v1/projects/{project_id}/api-key/rotate", memberWith(access.ManageKeys), s.rotateKey),
		get("/v1/projects/{project_id}/members", memberWith(access.ViewAnalytics), s.listMembers),
		post("/v1/projects/{project_id}/members", memberWith(access.ManageMembers), s.invite),
		patch("/v1/projects/{project_id}/members/{user_id}", memberWith(access.ManageMembers), s.changeRole),
		del("/v1/projects/{project_id}/members/{user_id}", memberWith(access.ManageMembers), s.removeMember),
		post("/v1/projects/{project_id}/invitations/accept", inviteeSession, s.acceptInvitation),
		post("/v1/projects/{project_id}/invitations/decline", inviteeSession, s.declineInvitation),
		post("/v1/projects/{project_id}/leave", anyMember, s.leaveProject),

		get("/v1/analytics/overview", projectParam(access.ViewAnalytics), reportRead(s.analyticsOverview)),
		get("/v1/analytics/agents", projectParam(access.ViewAnalytics), reportRead(s.analyticsAgents)),
		get("/v1/analytics/agents/summary", projectParam(access.ViewAnalytics), reportRead(s.analyticsAgentSummary)),
		get("/v1/analytics/agents/{agent_name:.+}", projectParam(access.ViewAnalytics), reportRead(s.analyticsAgentDetail)),
		get("/v1/analytics/models", projectParam(access.ViewAnalytics), reportRead(s.analyticsModels)),
		get("/v1/analytics/timeseries", projectParam(access.ViewAnalytics), reportRead(s.analyticsTimeseries)),
		get("/v1/analytics/full", projectParam(access.ViewAnalytics), reportRead(s.analyticsFull)),
		get("/v1/analytics/by/{dimension}", projectParam(access.ViewAnalytics), reportRead(s.analyticsBy)),
		get("/v1/analytics/cache", projectParam(access.ViewAnalytics), reportRead(s.analyticsCache)),
		get("/v1/analytics/forecast", projectParam(access.ViewAnalytics), reportRead(s.analyticsForecast)),
		get("/v1/analytics/anomalies", projectParam(access.ViewAnalytics), reportRead(s.analyticsAnomalies)),
		get("/v1/analytics/workflows", projectParam(access.ViewAnalytics), reportRead(s.analyticsWorkflows)),
		get("/v1/analytics/workflows/steps", projectParam(access.ViewAnalytics), reportRead(s.analyticsSteps)),
		get("/v1/analytics/workflows/tools", projectParam(access.ViewAnalytics), reportRead(s.analyticsTools)),
		get("/v1/analytics/workflows/repeated-work", projectParam(access.ViewAnalytics), reportRead(s.analyticsRepeatedWork)),
		get("/v1/analytics/workflows/outcomes", projectParam(access.ViewAnalytics), reportRead(s.analyticsOutcomes)),
		get("/v1/analytics/workflows/distribution", projectParam(access.ViewAnalytics), reportRead(s.analyticsDistribution)),
		get("/v1/analytics/traces", projectParam(access.ViewAnalytics), reportRead(s.analyticsTraces)),
		get("/v1/analytics/traces/{trace_id}", projectParam(access.ViewAnalytics), reportRead(s.analyticsTrace)),

		get("/v1/optimizations", projectParam(access.ViewAnalytics), reportRead(s.optimizations)),
		get("/v1/optimizations/summary", projectParam(access.ViewAnalytics), reportRead(s.optimizationSummary)),

		get("/v1/guardrails", projectParam(access.ViewAnalytics), read(s.listGuardrails)),
		get("/v1/guardrails/policy", apiKey(access.ViewAnalytics), s.guardrailPolicy),
		get("/v1/guardrails/compliance", projectParam(access.ViewAnalytics), reportRead(s.compliance)),
		put("/v1/projects/{project_id}/guardrails", memberOrKey(access.EditProject), s.putGuardrail),
		put("/v1/projects/{project_id}/guardrails/tool-tags", memberOrKey(access.EditProject), s.putToolTag),
		del("/v1/projects/{project_id}/guardrails/tool-tags/{tool_name}", memberOrKey(access.EditProject), s.deleteToolTag),
		del("/v1/projects/{project_id}/guardrails/{agent_name}", memberOrKey(access.EditProject), s.deleteGuardrail),
		put("/v1/projects/{project_id}/budget", memberOrKey(access.EditProject), s.putBudget),
		get("/v1/projects/{project_id}/tags", memberOrKey(access.ViewAnalytics), read(s.getTags)),
		put("/v1/projects/{project_id}/tags", memberOrKey(access.EditProject), s.putTags),
		get("/v1/projects/{project_id}/budget-state", memberOrKey(access.ViewAnalytics), read(s.getBudgetState)),
		get("/v1/projects/{project_id}/retention", memberOrKey(access.ViewAnalytics), read(s.getRetention)),
		put("/v1/projects/{project_id}/retention", memberWith(access.EditProject), s.putRetention),
		put("/v1/projects/{project_id}/webhook", memberOrKey(access.EditProject), s.putWebhook),
		get("/v1/projects/{project_id}/webhook", memberOrKey(access.ViewAnalytics), read(s.getWebhook)),
		post("/v1/projects/{project_id}/webhook/test", memberOrKey(access.EditProject), read(s.testWebhook)),
		get("/v1/projects/{project_id}/connections", memberWith(access.EditProject), read(s.listConnections)),
		put("/v1/projects/{project_id}/connections/{provider}", memberWith(access.EditProject), s.putConnection),
		del("/v1/projects/{project_id}/connections/{provider}", memberWith(access.EditProject), s.deleteConnection),
		post("/v1/projects/{project_id}/connections/{provider}/sync", memberWith(access.EditProject), s.syncConnection),
		get("/v1/reconciliation", projectParam(access.ViewAnalytics), reportRead(s.reconciliationReport)),
		get("/v1/reconciliation/summary", projectParam(access.ViewAnalytics), reportRead(s.reconciliationSummary)),
		get("/v1/notifications", session, read(s.listNotifications)),
		post("/v1/notifications/{notification_id}/read", session, s.readNotification),
		get("/v1/metrics", projectParam(access.ViewAnalytics), s.metrics),

		get("/v1/exports/calls", projectParam(access.ExportData), s.exportCalls),
		get("/v1/exports/focus", projectParam(access.ExportData), s.exportFocus),
	}
}

// dashboardRoutes are the web dashboard's (package dashboard,
// docs/dashboard.md), in this one table so the origin serves them behind
// the same middleware: pages are GET, admitted for every browser (a page
// sends one without a session to sign in); forms are POST with the CSRF
// check of the form guard. Pages read and forms write through the routes
// above, in process; none has a query of its own. The mirror does not
// serve them.
func (s *Server) dashboardRoutes() []route {
	guards := map[dashboard.Kind]guard{dashboard.Page: browserPage, dashboard.Form: browserForm, dashboard.Static: public}
	var out []route
	for _, rt := range s.ui.Routes() {
		out = append(out, route{Method: rt.Method, Path: rt.Path, Guard: guards[rt.Kind], Handler: rt.Handler})
	}
	return out
}
