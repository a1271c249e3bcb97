package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
)

// documents are the policy documents users accept, in reply order.
var documents = []string{"terms", "privacy"}

func (s *Server) currentVersion(doc string) string {
	if doc == "terms" {
		return s.Policies.TermsVersion
	}
	return s.Policies.PrivacyVersion
}

// policyJSON names one policy document's current version.
type policyJSON struct {
	Version string `json:"version"`
	URL     string `json:"url"`
}

// currentPoliciesJSON is GET /v1/auth/policies/current.
type currentPoliciesJSON struct {
	Terms   policyJSON `json:"terms"`
	Privacy policyJSON `json:"privacy"`
}

func (s *Server) currentPolicies(w http.ResponseWriter, _ *http.Request) error {
	return ok(w, http.StatusOK, currentPoliciesJSON{
		Terms:   policyJSON{Version: s.Policies.TermsVersion, URL: s.Policies.TermsURL},
		Privacy: policyJSON{Version: s.Policies.PrivacyVersion, URL: s.Policies.PrivacyURL},
	})
}

// policyCheckJSON is the policy check result (docs/accounts.md): per
// document the current version and the one the user accepted last (null:
// none).
type policyCheckJSON struct {
	RequiresReacceptance bool               `json:"requires_reacceptance"`
	Outdated             []string           `json:"outdated"`
	Current              map[string]string  `json:"current"`
	Accepted             map[string]*string `json:"accepted"`
}

// policyCheck compares the user's accepted versions with the current ones.
func (s *Server) policyCheck(r *http.Request, userID string) (policyCheckJSON, error) {
	got, err := s.DB.AcceptedVersions(r.Context(), userID)
	if err != nil {
		return policyCheckJSON{}, err
	}
	res := policyCheckJSON{Outdated: []string{}, Current: map[string]string{}, Accepted: map[string]*string{}}
	for _, doc := range documents {
		current := s.currentVersion(doc)
		res.Current[doc], res.Accepted[doc] = current, nil
		switch {
		case slices.Contains(got[doc], current):
			res.Accepted[doc] = &current
		case len(got[doc]) > 0:
			res.Accepted[doc] = &got[doc][0] // the most recent
			res.Outdated = append(res.Outdated, doc)
		default:
			res.Outdated = append(res.Outdated, doc)
		}
	}
	res.RequiresReacceptance = len(res.Outdated) > 0
	return res, nil
}

func (s *Server) policyStatus(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	res, err := s.policyCheck(r, userID)
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, res)
}

type consentItem struct {
	Document string `json:"document"`
	Version  string `json:"version"`
}

// acceptPolicies records consent to current versions, with the time, IP
// address and user agent, as registration does.
func (s *Server) acceptPolicies(w http.ResponseWriter, r *http.Request) error {
	userID := callerOf(r).UserID
	items, err := decodeConsents(r)
	if err != nil {
		return err
	}
	consents, err := s.checkConsents(items)
	if err != nil {
		return err
	}
	for i := range consents {
		consents[i].IP, consents[i].UserAgent = clientIP(r), r.UserAgent()
	}
	if err := s.DB.AcceptConsents(r.Context(), userID, consents, s.Now()); err != nil {
		return err
	}
	res, err := s.policyCheck(r, userID)
	if err != nil {
		return err
	}
	return ok(w, http.StatusOK, res)
}

// decodeConsents reads the body, which must be a JSON array of consent
// items; anything else is a 422 that says so rather than naming Go types.
func decodeConsents(r *http.Request) ([]consentItem, error) {
	var raw json.RawMessage
	if err := decode(r, &raw); err != nil {
		return nil, err
	}
	if raw[0] != '[' {
		return nil, apierr.Field("body", "must be an array of {document, version}")
	}
	var items []consentItem
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&items); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, apierr.Field(te.Field, "must be a string")
		}
		return nil, apierr.Newf(apierr.BadRequest, "malformed consent item: %v", err)
	}
	return items, nil
}

func (s *Server) checkConsents(items []consentItem) ([]postgres.Consent, error) {
	if len(items) == 0 {
		return nil, apierr.Field("body", "must be a non-empty array of {document, version}")
	}
	if len(items) > len(documents) {
		return nil, apierr.Field("body", fmt.Sprintf("must hold at most %d items, one per document", len(documents)))
	}
	out := make([]postgres.Consent, 0, len(items))
	for i, it := range items {
		switch {
		case it.Document != "terms" && it.Document != "privacy":
			return nil, apierr.Field(fmt.Sprintf("[%d].document", i), "must be terms or privacy")
		case it.Version != s.currentVersion(it.Document):
			return nil, apierr.Field(fmt.Sprintf("[%d].version", i), "must be the current version "+s.currentVersion(it.Document))
		}
		out = append(out, postgres.Consent{Document: it.Document, Version: it.Version})
	}
	return out, nil
}
