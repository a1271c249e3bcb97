package apiserver

import (
	"fmt"
	"sync/atomic"
)

// The authorization matrix: every route of the route table, the pipeline's
// slots included, called by every kind of caller, with the status each
// must get. TestAuthorizationMatrix reads the routes from the live table,
// so a new route without an entry here fails, and so does an entry whose
// route is gone. Public routes are called with a body that passes (or
// fails validation the same way for everyone): what matters is that no
// caller is refused or admitted by its credential alone.

type principal string

const (
	owner    principal = "owner"
	admin    principal = "admin"
	member   principal = "member"
	viewer   principal = "viewer"
	invitee  principal = "invitee"   // invited, not yet accepted
	outsider principal = "outsider"  // owner of another project
	anon     principal = "anonymous" // no credentials
	key      principal = "api-key"   // the project's own API key
	otherKey principal = "other-key" // another project's API key
)

var principals = []principal{owner, admin, member, viewer, invitee, outsider, anon, key, otherKey}

type matrixEntry struct {
	body func() any
	want map[principal]int
	// query is appended to the path, with the same placeholders.
	query string
	// fresh gives each session caller a session of its own: the route
	// ends sessions.
	fresh bool
}

func want(o, a, m, v, i, out, an, k, ok int) map[principal]int {
	return map[principal]int{owner: o, admin: a, member: m, viewer: v, invitee: i, outsider: out, anon: an, key: k, otherKey: ok}
}

// every principal gets the same status.
func every(status int) map[principal]int {
	return want(status, status, status, status, status, status, status, status, status)
}

// sessions is a route for any signed-in user: keys and no credential are 401.
func sessions(status int) map[principal]int {
	return want(status, status, status, status, status, status, 401, 401, 401)
}

// keysOnly is a pipeline route: a project API key, nothing else.
var keysOnly = want(401, 401, 401, 401, 401, 401, 401, 200, 200)

var inviteSeq atomic.Int64

func newInvite() any {
	return map[string]string{"email": fmt.Sprintf("matrix%d@example.com", inviteSeq.Add(1)), "role": "viewer"}
}

var guardrailSeq atomic.Int64

func newGuardrail() any {
	return map[string]string{"agent_name": fmt.Sprintf("matrix-agent-%d", guardrailSeq.Add(1))}
}

func body(v any) func() any { return func() any { return v } }

// projectData is every read of a project's data: its key, or any member
// session with ?project_id; another project's key is 403, outsiders 404.
var projectData = want(200, 200, 200, 200, 404, 404, 401, 200, 403)

// exportData is an export of a project's data: EXPORT_DATA, which members,
// admins and the project's key hold and viewers do not.
var exportData = want(200, 200, 200, 403, 404, 404, 401, 200, 403)

// matrix is keyed by "METHOD template" exactly as routes.go declares it.
var matrix = map[string]matrixEntry{
	"GET /v1/health":                     {want: every(200)},
	"GET /v1/pricing":                    {want: every(200)},
	"GET /v1/pricing/deprecations":       {want: every(200)},
	"GET /v1/pricing/sync/status":        {want: every(200)},
	"GET /v1/pricing/versions/{version}": {want: every(404)}, // no stored version: public all the same
	"GET /v1/pricing/{model_name:.+}":    {want: every(200)},
	"POST /v1/estimate":                  {body: body(map[string]any{"model": "gpt-4o", "input_tokens": 10, "output_tokens": 5}), want: every(200)},
	"POST /v1/pricing/import":            {body: body("{}"), want: want(403, 403, 403, 403, 403, 403, 401, 403, 403)},
	"POST /v1/pricing/reprice":           {body: body("{}"), want: want(403, 403, 403, 403, 403, 403, 401, 403, 403)},

	"POST /v1/events/batch":    {body: body("{}"), want: keysOnly},
	"POST /v1/otlp/v1/logs":    {body: body("{}"), want: keysOnly},
	"POST /v1/otlp/v1/metrics": {body: body("{}"), want: keysOnly},
	"POST /v1/otlp/v1/traces":  {body: body("{}"), want: keysOnly},
	"GET /v1/events":           {query: "?project_id={project_id}", want: want(200, 200, 200, 200, 404, 404, 401, 200, 403)},

	"GET /v1/analytics/overview":                {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/agents":                  {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/models":                  {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/timeseries":              {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/full":                    {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/by/{dimension}":          {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/cache":                   {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/forecast":                {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/anomalies":               {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/workflows":               {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/workflows/steps":         {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/workflows/tools":         {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/workflows/repeated-work": {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/workflows/outcomes":      {query: "?project_id={project_id}", want: projectData},
	"GET /v1/analytics/traces":                  {query: "?project_id={project_id}", want: projectData},
	// No runs in the matrix's project: a caller who may read gets 404 too.
	"GET /v1/analytics/workflows/distribution": {query: "?project_id={project_id}", want: want(404, 404, 404, 404, 404, 404, 401, 404, 403)},
	"GET /v1/analytics/traces/{trace_id}":      {query: "?project_id={project_id}", want: want(404, 404, 404, 404, 404, 404, 401, 404, 403)},
	"GET /v1/analytics/agents/summary":         {query: "?project_id={project_id}", want: projectData},
	// No agent made a call in the matrix's project: readers get 404 too.
	"GET /v1/analytics/agents/{agent_name:.+}": {query: "?project_id={project_id}", want: want(404, 404, 404, 404, 404, 404, 401, 404, 403)},
	"GET /v1/optimizations":                    {query: "?project_id={project_id}", want: projectData},
	"GET /v1/optimizations/summary":            {query: "?project_id={project_id}", want: projectData},

	"GET /v1/guardrails":            {query: "?project_id={project_id}", want: projectData},
	"GET /v1/guardrails/compliance": {query: "?project_id={project_id}", want: projectData},
	"GET /v1/guardrails/policy":     {want: want(401, 401, 401, 401, 401, 401, 401, 200, 200)},
	"PUT /v1/projects/{project_id}/guardrails": {body: newGuardrail,
		want: want(201, 201, 403, 403, 404, 404, 401, 403, 403)},
	"PUT /v1/projects/{project_id}/guardrails/tool-tags": {body: body(map[string]string{"tool_name": "search", "access": "read"}),
		want: want(200, 200, 403, 403, 404, 404, 401, 403, 403)},
	"DELETE /v1/projects/{project_id}/guardrails/tool-tags/{tool_name}": {want: want(404, 404, 403, 403, 404, 404, 401, 403, 403)},
	"DELETE /v1/projects/{project_id}/guardrails/{agent_name}":          {want: want(404, 404, 403, 403, 404, 404, 401, 403, 403)},
	"PUT /v1/projects/{project_id}/budget": {body: body(map[string]any{"budget": 100, "mode": "warn"}),
		want: want(200, 200, 403, 403, 404, 404, 401, 403, 403)},
	"GET /v1/projects/{project_id}/budget-state": {want: want(200, 200, 200, 200, 404, 404, 401, 200, 403)},
	"GET /v1/projects/{project_id}/tags":         {want: want(200, 200, 200, 200, 404, 404, 401, 200, 403)},
	"PUT /v1/projects/{project_id}/tags": {body: body(map[string]any{"keys": []string{"team"}}),
		want: want(200, 200, 403, 403, 404, 404, 401, 403, 403)},
	"PUT /v1/projects/{project_id}/webhook": {body: body(map[string]any{"url": nil}),
		want: want(200, 200, 403, 403, 404, 404, 401, 403, 403)},
	"GET /v1/projects/{project_id}/webhook": {want: want(200, 200, 200, 200, 404, 404, 401, 200, 403)},
	// Retention: anyone who reads the project reads it, admins change it.
	"GET /v1/projects/{project_id}/retention": {want: want(200, 200, 200, 200, 404, 404, 401, 200, 403)},
	"PUT /v1/projects/{project_id}/retention": {body: body(map[string]any{"raw_days": 30, "rollup_days": nil}),
		want: want(200, 200, 403, 403, 404, 404, 401, 401, 401)},
	// No webhook is configured: the test is refused for those allowed to run it.
	"POST /v1/projects/{project_id}/webhook/test": {want: want(422, 422, 403, 403, 404, 404, 401, 403, 403)},
	// Connections are for admins; a key that is not an admin key is
	// refused the same way for every caller allowed to try.
	"GET /v1/projects/{project_id}/connections": {want: want(200, 200, 403, 403, 404, 404, 401, 401, 401)},
	"PUT /v1/projects/{project_id}/connections/{provider}": {body: body(map[string]string{"admin_key": "sk-ant-api03-not-an-admin-key"}),
		want: want(422, 422, 403, 403, 404, 404, 401, 401, 401)},
	"DELETE /v1/projects/{project_id}/connections/{provider}":    {want: want(404, 404, 403, 403, 404, 404, 401, 401, 401)},
	"POST /v1/projects/{project_id}/connections/{provider}/sync": {want: want(404, 404, 403, 403, 404, 404, 401, 401, 401)},
	"GET /v1/reconciliation":                                     {query: "?project_id={project_id}", want: projectData},
	"GET /v1/reconciliation/summary":                             {query: "?project_id={project_id}", want: projectData},
	"GET /v1/notifications":                                      {want: sessions(200)},
	"POST /v1/notifications/{notification_id}/read":              {want: sessions(404)},
	"GET /v1/metrics":                                            {query: "?project_id={project_id}", want: projectData},
	"GET /v1/exports/calls":                                      {query: "?project_id={project_id}&from=2026-01-01&to=2026-02-01", want: exportData},
	"GET /v1/exports/focus":                                      {query: "?project_id={project_id}&from=2026-01-01&to=2026-02-01", want: exportData},

	"POST /v1/auth/register":                        {body: body("{}"), want: every(422)},
	"POST /v1/auth/login":                           {body: body(map[string]string{"email": "nobody@example.com", "password": "wrong password"}), want: every(401)},
	"POST /v1/auth/google":                          {body: body("{}"), want: every(422)},
	"POST /v1/auth/github":                          {body: body("{}"), want: every(422)},
	"POST /v1/auth/refresh":                         {body: body(map[string]string{"refresh_token": "lcr_unknown"}), want: every(401)},
	"POST /v1/auth/logout":                          {fresh: true, want: sessions(204)},
	"POST /v1/auth/logout-all":                      {fresh: true, want: sessions(204)},
	"GET /v1/auth/me":                               {want: sessions(200)},
	"PATCH /v1/auth/me":                             {body: body(map[string]string{"name": "matrix"}), want: sessions(200)},
	"POST /v1/auth/password/change":                 {body: body(map[string]string{"current_password": "wrong password", "new_password": "another password"}), want: sessions(422)},
	"POST /v1/auth/password/reset-request":          {body: body(map[string]string{"email": "not an address"}), want: every(422)},
	"POST /v1/auth/password/reset":                  {body: body(map[string]string{"token": "lcp_unknown", "new_password": "another password"}), want: every(422)},
	"POST /v1/auth/verify-email":                    {body: body(map[string]string{"token": "lcv_unknown"}), want: every(422)},
	"POST /v1/auth/verify-email/resend":             {want: sessions(200)},
	"GET /v1/auth/policies/current":                 {want: every(200)},
	"GET /v1/auth/policies/status":                  {want: sessions(200)},
	"POST /v1/auth/policies/accept":                 {body: body([]map[string]string{{"document": "terms", "version": testPolicy}}), want: sessions(200)},
	"POST /v1/projects":                             {body: body(map[string]string{"name": "n"}), want: sessions(201)},
	"GET /v1/projects":                              {want: sessions(200)},
	"GET /v1/projects/me":                           {want: want(401, 401, 401, 401, 401, 401, 401, 200, 200)},
	"GET /v1/projects/invitations/pending":          {want: sessions(200)},
	"GET /v1/projects/{project_id}":                 {want: want(200, 200, 200, 200, 404, 404, 401, 200, 403)},
	"PATCH /v1/projects/{project_id}":               {body: body(map[string]string{"description": "d"}), want: want(200, 200, 403, 403, 404, 404, 401, 403, 403)},
	"DELETE /v1/projects/{project_id}":              {want: want(200, 200, 403, 403, 404, 404, 401, 403, 403)},
	"POST /v1/projects/{project_id}/api-key/rotate": {want: want(200, 200, 403, 403, 404, 404, 401, 401, 401)},
	"GET /v1/projects/{project_id}/members":         {want: want(200, 200, 200, 200, 404, 404, 401, 401, 401)},
	"POST /v1/projects/{project_id}/members":        {body: newInvite, want: want(201, 201, 403, 403, 404, 404, 401, 401, 401)},
	"PATCH /v1/projects/{project_id}/members/{user_id}": {body: body(map[string]string{"role": "viewer"}),
		want: want(200, 200, 403, 403, 404, 404, 401, 401, 401)},
	"DELETE /v1/projects/{project_id}/members/{user_id}": {want: want(204, 204, 403, 403, 404, 404, 401, 401, 401)},
	// Accepting is idempotent for members; only the invitee has something to decline.
	"POST /v1/projects/{project_id}/invitations/accept":  {want: want(200, 200, 200, 200, 200, 404, 401, 401, 401)},
	"POST /v1/projects/{project_id}/invitations/decline": {want: want(404, 404, 404, 404, 204, 404, 401, 401, 401)},
	"POST /v1/projects/{project_id}/leave":               {want: want(400, 204, 204, 204, 404, 404, 401, 401, 401)},

	// The dashboard reads its session from cookies only: a bearer credential
	// opens no page (303 to sign in) and no form passes without its CSRF
	// token (403). Per-role access with cookies: dashboard_test.go.
	"GET /":                             {want: every(303)},
	"GET /login":                        {want: every(200)},
	"POST /login":                       {want: every(403)},
	"GET /register":                     {want: every(200)},
	"POST /register":                    {want: every(403)},
	"POST /logout":                      {want: every(403)},
	"GET /agents":                       {want: every(303)},
	"GET /agents/{agent_name:.+}":       {want: every(303)},
	"GET /optimizations":                {want: every(303)},
	"GET /reconciliation":               {want: every(303)},
	"GET /export/{report}.csv":          {want: every(303)},
	"GET /workflows":                    {want: every(303)},
	"GET /traces":                       {want: every(303)},
	"GET /traces/{trace_id}":            {want: every(303)},
	"GET /guardrails":                   {want: every(303)},
	"GET /models":                       {want: every(303)},
	"GET /chargeback":                   {want: every(303)},
	"GET /settings":                     {want: every(303)},
	"POST /settings/key/rotate":         {want: every(403)},
	"POST /settings/members":            {want: every(403)},
	"POST /settings/webhook":            {want: every(403)},
	"POST /settings/webhook/test":       {want: every(403)},
	"POST /settings/budget":             {want: every(403)},
	"POST /settings/retention":          {want: every(403)},
	"POST /settings/connections":        {want: every(403)},
	"POST /settings/connections/sync":   {want: every(403)},
	"POST /settings/connections/delete": {want: every(403)},
	"GET /static/{file}":                {want: every(200)},
}
