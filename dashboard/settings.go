package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
)

// Settings: members and invitations, key rotation, the webhook, the
// budget, the retention and provider connections. Each form is the matching API write: a viewer is refused by the
// route's own guard (and is shown no form at all).

type settingsData struct {
	Members []wire.Member
	Webhook wire.Webhook
	Budget  wire.BudgetState
	// Retention is the project's retention of raw calls and rollups.
	Retention wire.Retention
	Gauge     string
	Test      *wire.WebhookTest
	// Connections are the provider connections, read only for a role
	// that may change them (the API refuses the list to others).
	Connections []wire.ConnectionRead
	// BudgetValue and Thresholds prefill the budget form.
	BudgetValue, Thresholds string
}

func (d *Dashboard) settingsPage(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	return pd.settings(nil)
}

// settings reads what the settings page shows, after any form's write.
func (pd *dash) settings(test *wire.WebhookTest) (string, any, error) {
	data := settingsData{Test: test}
	var members wire.MemberList
	id := pd.pg.ProjectID
	if err := all(into(&members, func() (wire.MemberList, error) { return pd.api.members(id) }),
		into(&data.Webhook, func() (wire.Webhook, error) { return pd.api.webhook(id) }),
		into(&data.Budget, func() (wire.BudgetState, error) { return pd.api.budgetState(id) }),
		into(&data.Retention, func() (wire.Retention, error) { return pd.api.retention(id) })); err != nil {
		return "", nil, err
	}
	data.Members = members.Members
	if pd.pg.CanEdit {
		conns, err := pd.api.connections(id)
		if err != nil {
			return "", nil, err
		}
		data.Connections = conns.Connections
	}
	data.Thresholds = "50, 80, 100"
	if b := data.Budget; b.Budget != nil {
		data.BudgetValue = b.Budget.String()
		parts := make([]string, len(b.Thresholds))
		for i, t := range b.Thresholds {
			parts[i] = strconv.Itoa(int(t))
		}
		data.Thresholds = strings.Join(parts, ", ")
		data.Gauge = budgetGauge(b)
	}
	return "settings", data, nil
}

// settingsWrite is one settings form's write: what the page says after
// it, and a webhook test's result to show.
type settingsWrite func(pd *dash) (flash string, test *wire.WebhookTest, err error)

// settingsForm runs a settings write and shows the page again with its
// result; a refusal the person can fix (400, 422) is shown on the page
// with that status, any other (403, 404) is the error page.
func (d *Dashboard) settingsForm(write settingsWrite) func(http.ResponseWriter, *http.Request) error {
	return d.page("settings", "Settings", func(pd *dash) (string, any, error) {
		if err := pd.project(); err != nil {
			return "", nil, err
		}
		flash, test, err := write(pd)
		if err != nil {
			if st := statusFor(err); st != http.StatusBadRequest && st != http.StatusUnprocessableEntity {
				return "", nil, err
			}
			pd.pg.Error, pd.status = messageOf(err), statusFor(err)
		}
		pd.pg.Flash = flash
		return pd.settings(test)
	})
}

func (d *Dashboard) inviteForm(pd *dash) (string, *wire.WebhookTest, error) {
	f := pd.r.PostForm
	out, err := pd.api.invite(pd.pg.ProjectID, wire.InviteRequest{Email: f.Get("email"), Role: f.Get("role")})
	return out.Message, nil, err
}

func (d *Dashboard) webhookForm(pd *dash) (string, *wire.WebhookTest, error) {
	f := pd.r.PostForm
	req := wire.WebhookRequest{}
	if u := strings.TrimSpace(f.Get("url")); u != "" {
		req.URL = &u
	}
	if sec := f.Get("secret"); sec != "" {
		req.Secret = &sec
	}
	if f.Get("clear") == "true" {
		req = wire.WebhookRequest{}
	}
	if err := pd.api.putWebhook(pd.pg.ProjectID, req); err != nil {
		return "", nil, err
	}
	if req.URL == nil {
		return "Webhook removed.", nil, nil
	}
	return "Webhook saved: deliveries go to " + *req.URL + ".", nil, nil
}

func (d *Dashboard) webhookTestForm(pd *dash) (string, *wire.WebhookTest, error) {
	out, err := pd.api.testWebhook(pd.pg.ProjectID)
	if err != nil {
		return "", nil, err
	}
	if out.Delivered {
		return fmt.Sprintf("Test delivery accepted with status %d in %d ms.", *out.StatusCode, out.DurationMS), &out, nil
	}
	return "", &out, nil
}

func (d *Dashboard) budgetForm(pd *dash) (string, *wire.WebhookTest, error) {
	f := pd.r.PostForm
	req := wire.BudgetRequest{Mode: f.Get("mode")}
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
	if err := pd.api.putBudget(pd.pg.ProjectID, req); err != nil {
		return "", nil, err
	}
	return "Budget saved.", nil, nil
}

// rotateForm is POST /settings/key/rotate: the new key is shown on the
// page this post answers, once; it is in no cookie, URL or later page.
func (d *Dashboard) rotateForm(pd *dash) (string, any, error) {
	if err := pd.project(); err != nil {
		return "", nil, err
	}
	out, err := pd.api.rotateKey(pd.pg.ProjectID)
	if err != nil {
		return "", nil, err
	}
	return "key", keyData{Heading: "New API key for " + pd.pg.Project,
		Note:     "The previous key stopped working just now: update your agents.",
		curlData: d.curl(pd.r, pd.pg.ProjectID, out.APIKey)}, nil
}
