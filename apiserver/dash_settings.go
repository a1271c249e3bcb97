package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/apiserver/web"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/svgchart"
)

// Settings: members and invitations, key rotation, the webhook and the
// budget. Each form is the matching REST write, in process: a viewer is
// refused by the route's own guard (and is shown no form at all).

type settingsData struct {
	Members []memberJSON
	Webhook WebhookRead
	Budget  BudgetState
	Gauge   string
	Test    *WebhookTest
	// BudgetValue and Thresholds prefill the budget form.
	BudgetValue, Thresholds string
}

func (s *Server) settingsPage(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	return s.settings(d, nil)
}

// settings reads what the settings page shows, after any form's write.
func (s *Server) settings(d *dash, test *WebhookTest) (string, any, error) {
	data := settingsData{Test: test}
	var members memberListJSON
	if err := d.reads(pageRead{"/v1/projects/{project_id}/members", d.vars(), nil, &members},
		pageRead{"/v1/projects/{project_id}/webhook", d.vars(), nil, &data.Webhook},
		pageRead{"/v1/projects/{project_id}/budget-state", d.vars(), nil, &data.Budget}); err != nil {
		return "", nil, err
	}
	data.Members = members.Members
	data.Thresholds = "50, 80, 100"
	if b := data.Budget; b.Budget != nil {
		data.BudgetValue = b.Budget.String()
		parts := make([]string, len(b.Thresholds))
		th := make([]float64, len(b.Thresholds))
		for i, t := range b.Thresholds {
			parts[i], th[i] = strconv.Itoa(int(t)), float64(t)
		}
		data.Thresholds = strings.Join(parts, ", ")
		if b.UtilizationPercent != nil {
			data.Gauge = svgchart.Gauge("Budget used: "+web.Percent(b.UtilizationPercent), *b.UtilizationPercent, th, svgchart.Size{W: 320, H: 46})
		}
	}
	return "settings", data, nil
}

// settingsForm runs a settings write and shows the page again with its
// result; a refusal the person can fix (400, 422) is shown on the page
// with that status, any other (403, 404) is the error page.
func (s *Server) settingsForm(write func(d *dash) (flash string, test *WebhookTest, err error)) func(http.ResponseWriter, *http.Request) error {
	return s.page("settings", "Settings", func(d *dash) (string, any, error) {
		if err := d.project(); err != nil {
			return "", nil, err
		}
		flash, test, err := write(d)
		if err != nil {
			if st := statusFor(err); st != http.StatusBadRequest && st != http.StatusUnprocessableEntity {
				return "", nil, err
			}
			d.pg.Error, d.status = messageOf(err), statusFor(err)
		}
		d.pg.Flash = flash
		return s.settings(d, test)
	})
}

func (s *Server) inviteForm(d *dash) (string, *WebhookTest, error) {
	f := d.r.PostForm
	var out invitedJSON
	err := d.api(http.MethodPost, "/v1/projects/{project_id}/members", d.vars(), nil,
		inviteRequest{Email: f.Get("email"), Role: f.Get("role")}, &out)
	return out.Message, nil, err
}

func (s *Server) webhookForm(d *dash) (string, *WebhookTest, error) {
	f := d.r.PostForm
	req := WebhookRequest{}
	if u := strings.TrimSpace(f.Get("url")); u != "" {
		req.URL = &u
	}
	if sec := f.Get("secret"); sec != "" {
		req.Secret = &sec
	}
	if f.Get("clear") == "true" {
		req = WebhookRequest{}
	}
	if err := d.api(http.MethodPut, "/v1/projects/{project_id}/webhook", d.vars(), nil, req, nil); err != nil {
		return "", nil, err
	}
	if req.URL == nil {
		return "Webhook removed.", nil, nil
	}
	return "Webhook saved: deliveries go to " + *req.URL + ".", nil, nil
}

func (s *Server) webhookTestForm(d *dash) (string, *WebhookTest, error) {
	var out WebhookTest
	if err := d.api(http.MethodPost, "/v1/projects/{project_id}/webhook/test", d.vars(), nil, nil, &out); err != nil {
		return "", nil, err
	}
	if out.Delivered {
		return fmt.Sprintf("Test delivery accepted with status %d in %d ms.", *out.StatusCode, out.DurationMS), &out, nil
	}
	return "", &out, nil
}

func (s *Server) budgetForm(d *dash) (string, *WebhookTest, error) {
	f := d.r.PostForm
	req := BudgetRequest{Mode: f.Get("mode")}
	enabled := f.Get("enabled") != "false"
	req.Enabled = &enabled
	if v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f.Get("budget")), "$")); v != "" {
		n := json.Number(v)
		if _, err := n.Float64(); err != nil {
			return "", nil, apierr.Field("budget", "must be a positive number of USD")
		}
		req.Budget = &n
	}
	if th := strings.TrimSpace(f.Get("thresholds")); th != "" {
		for i, part := range strings.FieldsFunc(th, func(r rune) bool { return r == ',' || r == ' ' || r == '%' }) {
			t, err := strconv.Atoi(part)
			if err != nil || t < 1 || t > 100 {
				return "", nil, apierr.Field(fmt.Sprintf("thresholds[%d]", i), "must be an integer percent from 1 to 100")
			}
			req.Thresholds = append(req.Thresholds, int32(t))
		}
	}
	if err := d.api(http.MethodPut, "/v1/projects/{project_id}/budget", d.vars(), nil, req, nil); err != nil {
		return "", nil, err
	}
	return "Budget saved.", nil, nil
}

// rotateForm is POST /settings/key/rotate: the new key is shown on the
// page this post answers, once; it is in no cookie, URL or later page.
func (s *Server) rotateForm(d *dash) (string, any, error) {
	if err := d.project(); err != nil {
		return "", nil, err
	}
	var out keyRotatedJSON
	if err := d.api(http.MethodPost, "/v1/projects/{project_id}/api-key/rotate", d.vars(), nil, nil, &out); err != nil {
		return "", nil, err
	}
	return "key", keyData{Heading: "New API key for " + d.pg.Project,
		Note:     "The previous key stopped working just now: update your agents.",
		curlData: s.curl(d.r, d.pg.ProjectID, out.APIKey)}, nil
}
