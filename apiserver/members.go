package apiserver

import (
	"net/http"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

func newMemberJSON(m postgres.Member) wire.Member {
	out := wire.Member{ID: m.ID, UserID: m.UserID, Email: m.Email, Name: m.Name, Role: m.Role,
		IsOwner: m.IsOwner, IsPending: m.AcceptedAt == nil, InvitedAt: ts(m.InvitedAt)}
	if m.AcceptedAt != nil {
		at := ts(*m.AcceptedAt)
		out.AcceptedAt = &at
	}
	return out
}

// listMembers shows accepted members and live invitations to any member.
func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) error {
	id := callerOf(r).ProjectID
	members, err := s.DB.Members(r.Context(), id, s.Now().Add(-InvitationTTL))
	if err != nil {
		return err
	}
	out := make([]wire.Member, 0, len(members))
	for _, m := range members {
		out = append(out, newMemberJSON(m))
	}
	return ok(w, http.StatusOK, wire.MemberList{Members: out, Total: len(out)})
}

func checkRole(role string) error {
	if !access.ValidRole(role) {
		return apierr.Field("role", "must be one of admin, member, viewer")
	}
	return nil
}

// invite records a pending membership for an address, which may have no
// account yet, and mails the invitation.
func (s *Server) invite(w http.ResponseWriter, r *http.Request) error {
	c := callerOf(r)
	id, userID := c.ProjectID, c.UserID
	var req wire.InviteRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	email, err := normaliseEmail(req.Email)
	if err == nil {
		err = checkRole(req.Role)
	}
	if err != nil {
		return err
	}
	inviter, err := s.DB.UserByID(r.Context(), userID)
	if err != nil {
		return err
	}
	proj, err := s.DB.ProjectByID(r.Context(), id)
	if err != nil {
		return err
	}
	now := s.Now()
	membershipID, err := s.DB.Invite(r.Context(), id, email, req.Role, userID, now, now.Add(-InvitationTTL))
	if err != nil {
		return err
	}
	s.sendInvitation(email, proj, inviter, req.Role)
	msg := "Invitation sent to " + email
	if s.Accounts.Mailer == nil {
		msg = "Invitation recorded for " + email + "; this server sends no e-mail, so tell them yourself"
	}
	return ok(w, http.StatusCreated, wire.Invited{Message: msg, MembershipID: membershipID, Role: req.Role})
}

func (s *Server) pendingInvitations(w http.ResponseWriter, r *http.Request) error {
	u := callerOf(r).User
	invs, err := s.DB.PendingInvitations(r.Context(), u.Email, s.Now().Add(-InvitationTTL))
	if err != nil {
		return err
	}
	out := make([]wire.Invitation, 0, len(invs))
	for _, i := range invs {
		var by *wire.Inviter
		if i.InviterEmail != nil {
			by = &wire.Inviter{Name: *i.InviterName, Email: *i.InviterEmail}
		}
		out = append(out, wire.Invitation{ProjectID: i.ProjectID, ProjectName: i.ProjectName, Role: i.Role,
			InvitedBy: by, InvitedAt: ts(i.InvitedAt)})
	}
	return ok(w, http.StatusOK, wire.InvitationList{Invitations: out, Total: len(out)})
}

func (s *Server) acceptInvitation(w http.ResponseWriter, r *http.Request) error {
	c := callerOf(r)
	u, id := c.User, c.ProjectID
	now := s.Now()
	role, err := s.DB.AcceptInvitation(r.Context(), id, u.ID, u.Email, now, now.Add(-InvitationTTL))
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, wire.Accepted{Status: "accepted", ProjectID: id, Role: role})
}

func (s *Server) declineInvitation(w http.ResponseWriter, r *http.Request) error {
	c := callerOf(r)
	u, id := c.User, c.ProjectID
	if err := s.DB.DeclineInvitation(r.Context(), id, u.Email); err != nil {
		return err
	}
	return noContent(w)
}

// changeRole sets a member's role; {user_id} may also be a membership id,
// which is how a pending invitation without an account is addressed.
func (s *Server) changeRole(w http.ResponseWriter, r *http.Request) error {
	id := callerOf(r).ProjectID
	target, err := pathID(r, "user_id", "member")
	if err != nil {
		return err
	}
	var req wire.RoleRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := checkRole(req.Role); err != nil {
		return err
	}
	if err := s.DB.ChangeRole(r.Context(), id, target, req.Role); err != nil {
		return err
	}
	return ok(w, http.StatusOK, wire.RoleChanged{Status: "updated", NewRole: req.Role})
}

func (s *Server) removeMember(w http.ResponseWriter, r *http.Request) error {
	id := callerOf(r).ProjectID
	target, err := pathID(r, "user_id", "member")
	if err != nil {
		return err
	}
	if err := s.DB.RemoveMember(r.Context(), id, target); err != nil {
		return err
	}
	return noContent(w)
}

// leaveProject ends the caller's membership; the owner is refused with 400.
func (s *Server) leaveProject(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	id := callerOf(r).ProjectID
	if err := s.DB.LeaveProject(r.Context(), id, userID); err != nil {
		return err
	}
	return noContent(w)
}
