package apiserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/webhook"
)

// putWebhook is PUT /v1/projects/{project_id}/webhook (docs/guardrails.md
// "Webhooks").
func (s *Server) putWebhook(w http.ResponseWriter, r *http.Request) error {
	var req wire.WebhookRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	ctx, project := r.Context(), callerOf(r).ProjectID
	if req.URL == nil {
		if req.Secret != nil {
			return apierr.Field("secret", "cannot be set without a url: send the url with it")
		}
		if err := s.DB.ClearWebhook(ctx, project); err != nil {
			return err
		}
		return ok(w, http.StatusOK, wire.Webhook{})
	}
	allowPrivate := s.Webhooks != nil && s.Webhooks.AllowPrivate()
	if msg := webhook.CheckURL(*req.URL, allowPrivate); msg != "" {
		return apierr.Field("url", msg)
	}
	secret := ""
	if req.Secret != nil {
		if n := len(*req.Secret); n < 16 || n > 256 {
			return apierr.Field("secret", "must be 16 to 256 characters")
		}
		secret = *req.Secret
	} else if cur, err := s.DB.Webhook(ctx, project); err != nil {
		return err
	} else if cur == nil {
		return apierr.Field("secret", "is required: no secret is stored yet")
	}
	if err := s.DB.PutWebhook(ctx, project, *req.URL, secret); err != nil {
		return err
	}
	return ok(w, http.StatusOK, wire.Webhook{URL: req.URL, SecretSet: true})
}

// getWebhook is GET /v1/projects/{project_id}/webhook.
func (s *Server) getWebhook(r *http.Request) (wire.Webhook, error) {
	hook, err := s.DB.Webhook(r.Context(), callerOf(r).ProjectID)
	if err != nil || hook == nil {
		return wire.Webhook{}, err
	}
	return wire.Webhook{URL: &hook.URL, SecretSet: hook.Secret != ""}, nil
}

// TestPayload is the data of a webhook.test delivery.
type TestPayload struct {
	Message string `json:"message"`
}

// testWebhook is POST /v1/projects/{project_id}/webhook/test: one signed
// webhook.test delivery, sent now, not retried.
func (s *Server) testWebhook(r *http.Request) (wire.WebhookTest, error) {
	ctx, project := r.Context(), callerOf(r).ProjectID
	hook, err := s.DB.Webhook(ctx, project)
	if err != nil {
		return wire.WebhookTest{}, err
	}
	if hook == nil {
		return wire.WebhookTest{}, apierr.New(apierr.ValidationFailed, "no webhook is configured").
			WithHint("PUT /v1/projects/{project_id}/webhook with url and secret first")
	}
	if s.Webhooks == nil {
		return wire.WebhookTest{}, apierr.New(apierr.Unavailable, "webhook delivery is not available on this instance")
	}
	env, err := webhook.NewEnvelope(webhook.TypeTest, project, TestPayload{Message: "llmcost webhook test"}, s.Now())
	if err != nil {
		return wire.WebhookTest{}, err
	}
	body, err := json.Marshal(env)
	if err != nil {
		return wire.WebhookTest{}, err
	}
	res := s.Webhooks.Send(ctx, hook.URL, hook.Secret, env.ID, body, time.Now())
	out := wire.WebhookTest{Delivered: res.Delivered, DurationMS: res.Duration.Milliseconds()}
	if res.StatusCode != 0 {
		out.StatusCode = &res.StatusCode
	}
	if res.Err != nil {
		msg := res.Err.Error()
		out.Error = &msg
	}
	return out, nil
}
