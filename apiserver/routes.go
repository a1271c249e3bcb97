package apiserver

import "github.com/gorilla/mux"

// routes is the one route table. Specific paths come before parameterised
// ones (/v1/projects/me before /v1/projects/{id}). Routes contributed by the
// pipeline (event ingest and listing, OTLP) are added at run time by Handle.
func (s *Server) routes(r *mux.Router) {
	v1 := r.PathPrefix("/v1").Subrouter()

	v1.HandleFunc("/health", s.health).Methods("GET")

	// Public pricing, served by the mirror too. Model names may contain "/"
	// and ":" (raw or URL-encoded), so {model_name} spans segments and comes
	// after the specific /v1/pricing paths.
	v1.HandleFunc("/pricing", s.listPricing).Methods("GET")
	v1.HandleFunc("/pricing/deprecations", s.deprecations).Methods("GET")
	v1.HandleFunc("/pricing/sync/status", s.syncStatus).Methods("GET")
	v1.HandleFunc("/pricing/versions/{version}", s.pricingVersion).Methods("GET")
	v1.HandleFunc("/pricing/{model_name:.+}", s.modelPricing).Methods("GET")
	v1.HandleFunc("/estimate", s.estimate).Methods("POST")
	if s.Mirror {
		return // the mirror serves the routes above and nothing else
	}
	v1.HandleFunc("/pricing/import", s.importPricing).Methods("POST")
	v1.HandleFunc("/pricing/reprice", s.reprice).Methods("POST")

	v1.HandleFunc("/auth/register", s.register).Methods("POST")
	v1.HandleFunc("/auth/login", s.login).Methods("POST")
	v1.HandleFunc("/auth/google", s.googleSignIn).Methods("POST")
	v1.HandleFunc("/auth/github", s.githubSignIn).Methods("POST")
	v1.HandleFunc("/auth/refresh", s.refresh).Methods("POST")
	v1.HandleFunc("/auth/logout", s.logout).Methods("POST")
	v1.HandleFunc("/auth/logout-all", s.logoutAll).Methods("POST")
	v1.HandleFunc("/auth/me", s.me).Methods("GET")
	v1.HandleFunc("/auth/me", s.updateMe).Methods("PATCH")
	v1.HandleFunc("/auth/password/change", s.changePassword).Methods("POST")
	v1.HandleFunc("/auth/password/reset-request", s.resetRequest).Methods("POST")
	v1.HandleFunc("/auth/password/reset", s.resetPassword).Methods("POST")
	v1.HandleFunc("/auth/verify-email", s.verifyEmail).Methods("POST")
	v1.HandleFunc("/auth/verify-email/resend", s.resendVerification).Methods("POST")
	v1.HandleFunc("/auth/policies/current", s.currentPolicies).Methods("GET")
	v1.HandleFunc("/auth/policies/status", s.policyStatus).Methods("GET")
	v1.HandleFunc("/auth/policies/accept", s.acceptPolicies).Methods("POST")

	v1.HandleFunc("/projects", s.createProject).Methods("POST")
	v1.HandleFunc("/projects", s.listProjects).Methods("GET")
	v1.HandleFunc("/projects/me", s.keyProject).Methods("GET")
	v1.HandleFunc("/projects/invitations/pending", s.pendingInvitations).Methods("GET")
	v1.HandleFunc("/projects/{id}", s.getProject).Methods("GET")
	v1.HandleFunc("/projects/{project_id}", s.updateProject).Methods("PATCH")
	v1.HandleFunc("/projects/{project_id}", s.deleteProject).Methods("DELETE")
	v1.HandleFunc("/projects/{project_id}/api-key/rotate", s.rotateKey).Methods("POST")
	v1.HandleFunc("/projects/{project_id}/members", s.listMembers).Methods("GET")
	v1.HandleFunc("/projects/{project_id}/members", s.invite).Methods("POST")
	v1.HandleFunc("/projects/{project_id}/members/{user_id}", s.changeRole).Methods("PATCH")
	v1.HandleFunc("/projects/{project_id}/members/{user_id}", s.removeMember).Methods("DELETE")
	v1.HandleFunc("/projects/{project_id}/invitations/accept", s.acceptInvitation).Methods("POST")
	v1.HandleFunc("/projects/{project_id}/invitations/decline", s.declineInvitation).Methods("POST")
	v1.HandleFunc("/projects/{project_id}/leave", s.leaveProject).Methods("POST")

	v1.HandleFunc("/analytics/overview", analyticsHandler(s, s.analyticsOverview)).Methods("GET")
	v1.HandleFunc("/analytics/agents", analyticsHandler(s, s.analyticsAgents)).Methods("GET")
	v1.HandleFunc("/analytics/models", analyticsHandler(s, s.analyticsModels)).Methods("GET")
	v1.HandleFunc("/analytics/timeseries", analyticsHandler(s, s.analyticsTimeseries)).Methods("GET")
	v1.HandleFunc("/analytics/full", analyticsHandler(s, s.analyticsFull)).Methods("GET")
	v1.HandleFunc("/analytics/by/{dimension}", analyticsHandler(s, s.analyticsBy)).Methods("GET")
	v1.HandleFunc("/analytics/cache", analyticsHandler(s, s.analyticsCache)).Methods("GET")
}
