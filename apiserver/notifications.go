package apiserver

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
)

// listNotifications is GET /v1/notifications (limit, offset), newest first.
func (s *Server) listNotifications(r *http.Request) (wire.NotificationList, error) {
	limit, err := analytics.ParseLimit(r.URL.Query().Get("limit"))
	if err != nil {
		return wire.NotificationList{}, err
	}
	offset, err := intParam(r.URL.Query().Get("offset"), "offset", 0, 0, 1_000_000)
	if err != nil {
		return wire.NotificationList{}, err
	}
	rows, total, unread, err := s.DB.Notifications(r.Context(), callerOf(r).UserID, limit, offset)
	if err != nil {
		return wire.NotificationList{}, err
	}
	out := wire.NotificationList{Notifications: make([]wire.Notification, len(rows)), Total: total, Unread: unread}
	for i, n := range rows {
		out.Notifications[i] = wire.Notification{ID: n.ID, ProjectID: n.ProjectID, Type: n.Type, Title: n.Title,
			Body: n.Body, Data: n.Data, CreatedAt: ts(n.CreatedAt)}
		if n.ReadAt != nil {
			t := ts(*n.ReadAt)
			out.Notifications[i].ReadAt = &t
		}
	}
	return out, nil
}

// readNotification is POST /v1/notifications/{notification_id}/read.
func (s *Server) readNotification(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["notification_id"]
	if _, err := uuid.Parse(id); err != nil {
		return apierr.New(apierr.NotFound, "notification not found")
	}
	if err := s.DB.MarkNotificationRead(r.Context(), callerOf(r).UserID, id); err != nil {
		return err
	}
	return noContent(w)
}
