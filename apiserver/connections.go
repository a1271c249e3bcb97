package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/reconcile"
)

// SyncQueue starts provider syncs; the job runner is one.
type SyncQueue interface {
	// SyncNow runs the due connections' syncs soon, on one instance.
	SyncNow(ctx context.Context) error
}

// ConnectionRequest is the body of PUT
// /v1/projects/{project_id}/connections/{provider}; the record is in wire
// so the dashboard's client sends the same type.
type ConnectionRequest = wire.ConnectionRequest

// ConnectionRead is a connection as the API shows it: never the key.
type ConnectionRead = wire.ConnectionRead

// ConnectionList is GET /v1/projects/{project_id}/connections.
type ConnectionList = wire.ConnectionList

func connectionJSON(c postgres.Connection, now time.Time) ConnectionRead {
	out := ConnectionRead{Provider: c.Provider, KeyHint: c.KeyHint, WorkspaceIDs: c.WorkspaceIDs,
		ProjectIDs: c.ProjectIDs, APIKeyIDs: c.APIKeyIDs, BackfillDays: c.BackfillDays,
		TolerancePercent: json.Number(reconcile.FormatBasisPoints(c.ToleranceBP)), SyncStatus: c.SyncStatus,
		LastSyncError: c.LastSyncError, CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt)}
	if c.LastSyncAt != nil {
		v := ts(*c.LastSyncAt)
		out.LastSyncAt = &v
	}
	// A failed connection waits for a new key or "sync now"; the others
	// say when the next sync is due (now, when it is overdue).
	if c.SyncStatus != postgres.SyncFailed {
		next := c.NextAttemptAt
		if next.Before(now) {
			next = now
		}
		v := ts(next)
		out.NextSyncAt = &v
	}
	return out
}

// listConnections is GET /v1/projects/{project_id}/connections.
func (s *Server) listConnections(r *http.Request) (ConnectionList, error) {
	rows, err := s.DB.Connections(r.Context(), callerOf(r).ProjectID)
	if err != nil {
		return ConnectionList{}, err
	}
	out := ConnectionList{Connections: make([]ConnectionRead, len(rows)), Total: len(rows)}
	for i, c := range rows {
		out.Connections[i] = connectionJSON(c, s.Now())
	}
	return out, nil
}

// providerParam is the path's {provider}, checked.
func providerParam(r *http.Request) (string, error) {
	p := mux.Vars(r)["provider"]
	if !reconcile.KnownProvider(p) {
		return "", apierr.Field("provider", "must be anthropic or openai")
	}
	return p, nil
}

// putConnection is PUT /v1/projects/{project_id}/connections/{provider}:
// 201 when the provider is newly connected, 200 when replaced. Nothing is
// stored unless the whole body is valid.
func (s *Server) putConnection(w http.ResponseWriter, r *http.Request) error {
	provider, err := providerParam(r)
	if err != nil {
		return err
	}
	var req ConnectionRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	in := reconcile.ConnectionInput{Provider: provider, WorkspaceIDs: req.WorkspaceIDs, ProjectIDs: req.ProjectIDs,
		APIKeyIDs: req.APIKeyIDs, BackfillDays: req.BackfillDays}
	if req.AdminKey != nil {
		in.AdminKey = *req.AdminKey
		in.HasKey = true
	}
	if req.TolerancePercent != nil {
		v := req.TolerancePercent.String()
		in.TolerancePercent = &v
	}
	valid, err := in.Validate()
	if err != nil {
		return err
	}
	project := callerOf(r).ProjectID
	c := postgres.Connection{ProjectID: project, Provider: provider, WorkspaceIDs: valid.WorkspaceIDs,
		ProjectIDs: valid.ProjectIDs, APIKeyIDs: valid.APIKeyIDs, BackfillDays: valid.BackfillDays,
		ToleranceBP: valid.ToleranceBP}
	if in.HasKey {
		if s.Keys == nil {
			return apierr.New(apierr.NotConfigured, "this server cannot store provider keys: it has no key-encryption secret").
				WithHint("an operator sets LLMCOST_SECRET_KEY (at least 32 characters) and restarts the server")
		}
		sealed, err := s.Keys.Seal([]byte(in.AdminKey), reconcile.KeyAAD(project, provider))
		if err != nil {
			return err
		}
		c.KeySealed, c.KeyHint = sealed, reconcile.KeyHint(in.AdminKey)
	}
	created, restarted, err := s.DB.PutConnection(r.Context(), c)
	if err != nil {
		return err
	}
	stored, err := s.DB.Connection(r.Context(), project, provider)
	if err != nil {
		return err
	}
	if restarted && s.Syncs != nil {
		// A new connection, key or scope: the back-fill starts now rather
		// than at the next tick, which still takes it if the queue is away.
		_ = s.Syncs.SyncNow(r.Context())
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return ok(w, status, connectionJSON(stored, s.Now()))
}

// deleteConnection is DELETE /v1/projects/{project_id}/connections/{provider}:
// the key and everything fetched with it are removed.
func (s *Server) deleteConnection(w http.ResponseWriter, r *http.Request) error {
	provider, err := providerParam(r)
	if err != nil {
		return err
	}
	if err := s.DB.DeleteConnection(r.Context(), callerOf(r).ProjectID, provider); err != nil {
		return err
	}
	return noContent(w)
}

// syncConnection is POST /v1/projects/{project_id}/connections/{provider}/sync:
// 202, the connection due now.
func (s *Server) syncConnection(w http.ResponseWriter, r *http.Request) error {
	provider, err := providerParam(r)
	if err != nil {
		return err
	}
	project := callerOf(r).ProjectID
	if err := s.DB.RequestSync(r.Context(), project, provider); err != nil {
		return err
	}
	if s.Syncs != nil {
		if err := s.Syncs.SyncNow(r.Context()); err != nil {
			return apierr.Unavailablef(err, "the sync could not be queued")
		}
	}
	c, err := s.DB.Connection(r.Context(), project, provider)
	if err != nil {
		return err
	}
	return ok(w, http.StatusAccepted, connectionJSON(c, s.Now()))
}

func jsonPercent(bp int) json.Number { return json.Number(reconcile.FormatBasisPoints(bp)) }
