package apiserver

import (
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
)

// Notification is one in-app notification.
type Notification struct {
	ID        string          `json:"id"`
	ProjectID string          `json:"project_id"`
	Type      string          `json:"type"`
	Title     string          `json:"title"`
	Body      string          `json:"body"`
	Data      json.RawMessage `json:"data"`
	CreatedAt string          `json:"created_at"`
	ReadAt    *string         `json:"read_at"`
}

// NotificationList is GET /v1/notifications.
type NotificationList struct {
	Notifications []Notification `json:"notifications"`
	Total         int64          `json:"total"`
	Unread        int64          `json:"unread"`
}

// listNotifications is GET /v1/notifications (limit, offset), newest first.
func (s *Server) listNotifications(r *http.Request) (NotificationList, error) {
	limit, err := analytics.ParseLimit(r.URL.Query().Get("limit"))
	if err != nil {
		return NotificationList{}, err
	}
	offset, err := intParam(r.URL.Query().Get("offset"), "offset", 0, 0, 1_000_000)
	if err != nil {
		return NotificationList{}, err
	}
	rows, total, unread, err := s.DB.Notifications(r.Context(), callerOf(r).UserID, limit, offset)
	if err != nil {
		return NotificationList{}, err
	}
	out := NotificationList{Notifications: make([]Notification, len(rows)), Total: total, Unread: unread}
	for i, n := range rows {
		out.Notifications[i] = Notification{ID: n.ID, ProjectID: n.ProjectID, Type: n.Type, Title: n.Title,
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
