// Package webhook builds and sends signed webhook deliveries: the envelope,
// the service's signature (X-Service-Signature: hex HMAC-SHA256 of
// "{timestamp}.{body}") beside the Standard Webhooks headers, and an HTTP
// client that refuses non-public destinations at dial time, follows no
// redirect and gives up after 10 s.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Event types.
const (
	TypeGuardrailBreach = "guardrail.breach"
	TypeBudgetCrossed   = "budget.threshold_crossed"
	TypeTest            = "webhook.test"
	// TypeReconciliationDrift: a month's bill drifted from llmcost's
	// figures past the connection's tolerance.
	TypeReconciliationDrift = "reconciliation.drift"
	// TypeBudgetForecastExceeded: the month's projected metered spend
	// first went above the budget (once per project and month).
	TypeBudgetForecastExceeded = "budget.forecast_exceeded"
	// TypeSpendAnomaly: a day's metered spend of the project or of one
	// agent is far above its recent baseline (once per scope and day).
	TypeSpendAnomaly = "spend.anomaly"
)

// Envelope wraps every delivery body.
type Envelope struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	ProjectID string          `json:"project_id"`
	Data      json.RawMessage `json:"data"`
}

// NewEnvelope is an envelope with a fresh id ("evt_" and 24 hex digits).
func NewEnvelope(typ, projectID string, data any, now time.Time) (Envelope, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, err
	}
	var id [12]byte
	_, _ = rand.Read(id[:])
	return Envelope{ID: "evt_" + hex.EncodeToString(id[:]), Type: typ,
		CreatedAt: now.UTC().Format(time.RFC3339Nano), ProjectID: projectID, Data: raw}, nil
}

// Headers names.
const (
	HeaderSignature = "X-Service-Signature"
	HeaderTimestamp = "X-Service-Timestamp"
	HeaderSWID      = "webhook-id"
	HeaderSWTime    = "webhook-timestamp"
	HeaderSWSig     = "webhook-signature"
)

// Sign is the hex HMAC-SHA256 of "{timestamp}.{body}" with secret.
func Sign(secret string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.", timestamp)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// StandardKey is the HMAC key Standard Webhooks uses for secret: a secret
// written as "whsec_<base64>" is that base64's bytes (the spec's form);
// any other secret is used as its own bytes, so a receiver using a
// Standard Webhooks library passes "whsec_" + base64(secret).
func StandardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(rest); err == nil && len(k) > 0 {
			return k
		}
	}
	return []byte(secret)
}

// StandardSignature is the webhook-signature value: "v1," and the base64
// HMAC-SHA256 of "{id}.{timestamp}.{body}".
func StandardSignature(secret, id string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, StandardKey(secret))
	fmt.Fprintf(m, "%s.%d.", id, timestamp)
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SignedHeaders are the headers of one delivery of body sent at ts.
func SignedHeaders(secret, id string, ts time.Time, body []byte) map[string]string {
	unix := ts.Unix()
	return map[string]string{
		"Content-Type":  "application/json",
		HeaderSignature: Sign(secret, unix, body),
		HeaderTimestamp: strconv.FormatInt(unix, 10),
		HeaderSWID:      id,
		HeaderSWTime:    strconv.FormatInt(unix, 10),
		HeaderSWSig:     StandardSignature(secret, id, unix, body),
	}
}

// Verify checks a delivery as a receiver should: the timestamp within
// tolerance of now, then the digest in constant time.
func Verify(secret string, header map[string]string, body []byte, now time.Time, tolerance time.Duration) bool {
	ts, err := strconv.ParseInt(header[HeaderTimestamp], 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return false
	}
	return hmac.Equal([]byte(Sign(secret, ts, body)), []byte(header[HeaderSignature]))
}
