package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// maxNameLen bounds agent, tool and model names in guardrails.
const maxNameLen = 256

// listGuardrails is GET /v1/guardrails.
func (s *Server) listGuardrails(r *http.Request) ([]wire.Guardrail, error) {
	rows, err := s.DB.Guardrails(r.Context(), callerOf(r).ProjectID)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Guardrail, len(rows))
	for i, g := range rows {
		out[i] = guardrailJSON(g)
	}
	return out, nil
}

// putGuardrail is PUT /v1/projects/{project_id}/guardrails: it replaces
// the agent's guardrail whole; 201 when it is new.
func (s *Server) putGuardrail(w http.ResponseWriter, r *http.Request) error {
	var req wire.GuardrailRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	g, err := guardrailOf(req)
	if err != nil {
		return err
	}
	row, created, err := s.DB.PutGuardrail(r.Context(), callerOf(r).ProjectID, g)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return ok(w, status, guardrailJSON(row))
}

// deleteGuardrail is DELETE /v1/projects/{project_id}/guardrails/{agent_name}.
func (s *Server) deleteGuardrail(w http.ResponseWriter, r *http.Request) error {
	if err := s.DB.DeleteGuardrail(r.Context(), callerOf(r).ProjectID, mux.Vars(r)["agent_name"]); err != nil {
		return err
	}
	return noContent(w)
}

// putToolTag is PUT /v1/projects/{project_id}/guardrails/tool-tags.
func (s *Server) putToolTag(w http.ResponseWriter, r *http.Request) error {
	var req wire.ToolTag
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := checkName("tool_name", req.ToolName); err != nil {
		return err
	}
	if req.Access != string(guardrail.Read) && req.Access != string(guardrail.Write) {
		return apierr.Field("access", "must be read or write")
	}
	t := postgres.ToolTag{ToolName: req.ToolName, Access: guardrail.Access(req.Access)}
	if err := s.DB.PutToolTag(r.Context(), callerOf(r).ProjectID, t); err != nil {
		return err
	}
	return ok(w, http.StatusOK, req)
}

// deleteToolTag is DELETE /v1/projects/{project_id}/guardrails/tool-tags/{tool_name}.
func (s *Server) deleteToolTag(w http.ResponseWriter, r *http.Request) error {
	if err := s.DB.DeleteToolTag(r.Context(), callerOf(r).ProjectID, mux.Vars(r)["tool_name"]); err != nil {
		return err
	}
	return noContent(w)
}

// guardrailPolicy is GET /v1/guardrails/policy, for enforcement points:
// an ETag over the body (If-None-Match answers 304) and max-age=30.
func (s *Server) guardrailPolicy(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), callerOf(r).ProjectID
	rows, err := s.DB.Guardrails(ctx, project)
	if err != nil {
		return err
	}
	tags, err := s.DB.ToolTags(ctx, project)
	if err != nil {
		return err
	}
	state, err := s.budgetState(r, project)
	if err != nil {
		return err
	}
	p := wire.PolicyRead{Guardrails: make([]wire.PolicyGuardrail, len(rows)), ToolTags: map[string]string{},
		Budget: wire.PolicyBudget{Enabled: state.Enabled, Mode: state.Mode, Currency: state.Currency, Budget: state.Budget,
			SpendMTD: state.SpendMTD, Exhausted: state.Exhausted, PeriodEndsAt: state.PeriodEndsAt}}
	for i, g := range rows {
		p.Guardrails[i] = guardrailJSON(g).PolicyGuardrail
	}
	for _, t := range tags {
		p.ToolTags[t.ToolName] = string(t.Access)
	}
	// The tag covers everything but as_of, so an unchanged policy keeps it.
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "private, max-age=30")
	if match := r.Header.Get("If-None-Match"); match != "" && (match == etag || match == "*" || match == "W/"+etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	p.AsOf = ts(s.Now())
	return ok(w, http.StatusOK, p)
}

// guardrailOf checks a guardrail request and makes it the guardrail to store.
func guardrailOf(req wire.GuardrailRequest) (guardrail.Guardrail, error) {
	g := guardrail.Guardrail{AgentName: req.AgentName, AllowedTools: req.AllowedTools, ReadOnly: req.ReadOnly,
		AllowedModels: req.AllowedModels, MaxToolCallsPerRun: req.MaxToolCallsPerRun, Enabled: true}
	if req.Enabled != nil {
		g.Enabled = *req.Enabled
	}
	if err := checkName("agent_name", req.AgentName); err != nil {
		return g, err
	}
	if err := checkList("allowed_tools", req.AllowedTools); err != nil {
		return g, err
	}
	if err := checkList("allowed_models", req.AllowedModels); err != nil {
		return g, err
	}
	if req.MaxToolCallsPerRun != nil && *req.MaxToolCallsPerRun < 1 {
		return g, apierr.Field("max_tool_calls_per_run", "must be an integer of at least 1, or null")
	}
	if req.MaxCostPerRunUSD != nil {
		nano, err := pricing.ParseCostNano(req.MaxCostPerRunUSD.String())
		if err != nil || nano <= 0 {
			return g, apierr.Field("max_cost_per_run_usd", "must be a positive number of USD, or null")
		}
		g.MaxCostPerRunNano = &nano
	}
	return g, nil
}

func checkName(field, v string) error {
	if v == "" || len(v) > maxNameLen {
		return apierr.Field(field, fmt.Sprintf("is required: a non-empty string of at most %d bytes", maxNameLen))
	}
	return nil
}

// checkList: unique non-empty names; models unique after normalisation.
func checkList(field string, list []string) error {
	seen := make([]string, 0, len(list))
	for i, v := range list {
		if err := checkName(fmt.Sprintf("%s[%d]", field, i), v); err != nil {
			return err
		}
		k := v
		if field == "allowed_models" {
			k = pricing.Normalize(v)
		}
		if slices.Contains(seen, k) {
			return apierr.Field(fmt.Sprintf("%s[%d]", field, i), "repeats an earlier entry: entries must be unique")
		}
		seen = append(seen, k)
	}
	return nil
}
