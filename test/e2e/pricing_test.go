package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pricingFixture is the LiteLLM snapshot; the test fails, not skips,
// without it.
func pricingFixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(), "testdata", "fixtures", "pricing", "litellm-subset-2026-07.json"))
	if err != nil {
		t.Fatalf("the pricing fixture is required: %v", err)
	}
	return data
}

// fixtureVariant returns the fixture with entries replaced (nil deletes).
func fixtureVariant(t *testing.T, change map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(pricingFixture(t), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range change {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// textModels lists the fixture's models priced per text token, worked out
// here independently of the parser.
func textModels(t *testing.T) []string {
	var m map[string]map[string]any
	if err := json.Unmarshal(pricingFixture(t), &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for name, e := range m {
		mode, _ := e["mode"].(string)
		in, _ := e["input_cost_per_token"].(float64)
		o, _ := e["output_cost_per_token"].(float64)
		if (mode == "chat" || mode == "completion" || mode == "responses") && in+o > 0 {
			out = append(out, name)
		}
	}
	return out
}

// registerAs registers a user with a chosen e-mail and returns its access
// token and its default project's API key.
func (s *service) registerAs(t *testing.T, email string) (token, projectID, key string) {
	t.Helper()
	r := s.call(t, "POST", "/v1/auth/register", "", map[string]any{
		"email": email, "password": "correct horse battery", "accept_terms": true, "accept_privacy": true,
		"terms_version": "2026-01-01", "privacy_version": "2026-01-01",
	}).must(t, http.StatusCreated)
	proj := r.Body["default_project"].(map[string]any)
	return r.Body["access_token"].(string), proj["id"].(string), proj["api_key"].(string)
}

func errMessage(r response) string {
	e, _ := r.Body["error"].(map[string]any)
	return fmt.Sprint(e["message"], " ", e["hint"])
}

// estimates prices one usage (with cache reads and writes) on each model.
func (s *service) estimates(t *testing.T, models []string, input int) map[string]string {
	out := map[string]string{}
	for _, m := range models {
		r := s.call(t, "POST", "/v1/estimate", "", map[string]any{"model": m, "input_tokens": input,
			"output_tokens": 3000, "cached_tokens": input / 2, "cache_write_tokens": input / 10}).must(t, http.StatusOK)
		out[m] = r.Body["total_cost"].(json.Number).String()
	}
	return out
}

func TestPricingImportByDeploymentAdmin(t *testing.T) {
	n := time.Now().UnixNano()
	admin := fmt.Sprintf("boss-%d@example.com", n)
	s := start(t, map[string]string{"LLMCOST_ADMIN_EMAILS": fmt.Sprintf("ops@example.com, BOSS-%d@Example.COM", n)})
	adminToken, _, adminKey := s.registerAs(t, admin)
	userToken, _, _ := s.account(t)
	fixture := pricingFixture(t)

	// Only a deployment admin's session may import.
	s.call(t, "POST", "/v1/pricing/import", "", fixture).must(t, http.StatusUnauthorized)
	s.call(t, "POST", "/v1/pricing/import", "not-a-session-token", fixture).must(t, http.StatusUnauthorized)
	s.call(t, "POST", "/v1/pricing/import", userToken, fixture).must(t, http.StatusForbidden)
	s.call(t, "POST", "/v1/pricing/import", adminKey, fixture).must(t, http.StatusForbidden)
	s.call(t, "POST", "/v1/pricing/import", "sk_llmc_forged", fixture).must(t, http.StatusUnauthorized)

	// Models the fixture and the built-in table both carry, none of them an
	// erratum: the imported prices must equal the built-in ones, under and
	// over the long-context threshold.
	same := []string{"claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1", "gpt-5", "gpt-4o-mini", "o3",
		"gemini-2.5-pro", "gemini-2.5-flash", "gpt-5.4"}
	small, large := s.estimates(t, same, 100_000), s.estimates(t, same, 300_000)
	before := s.call(t, "GET", "/v1/pricing", "", nil).must(t, http.StatusOK)

	r := s.call(t, "POST", "/v1/pricing/import", adminToken, fixture).must(t, http.StatusOK)
	text := textModels(t)
	if num(t, r.Body["imported"]) != float64(len(text)) || len(r.Body["changed_models"].([]any)) == 0 {
		t.Fatalf("imported %v of %d text models: %s", r.Body["imported"], len(text), r.Raw)
	}
	reasons := map[string]string{}
	for _, k := range r.Body["skipped"].([]any) {
		k := k.(map[string]any)
		reasons[k["model"].(string)] = k["reason"].(string)
	}
	if !strings.Contains(reasons["gpt-image-1"], "image_generation") || !strings.Contains(reasons["gpt-realtime-whisper"], "per second") {
		t.Errorf("skip reasons: %v", reasons)
	}
	for _, name := range text {
		e := s.call(t, "GET", "/v1/pricing/"+strings.ReplaceAll(name, "/", "%2F"), "", nil).must(t, http.StatusOK)
		if e.Body["source"] != "litellm" {
			t.Errorf("%s is priced by %v after the import", name, e.Body["source"])
		}
	}
	after := s.call(t, "GET", "/v1/pricing", "", nil).must(t, http.StatusOK)
	if after.Body["source"] != "import" || after.Body["synced_at"] == nil || num(t, after.Body["total"]) <= num(t, before.Body["total"]) {
		t.Fatalf("catalogue after the import: source %v synced_at %v total %v", after.Body["source"], after.Body["synced_at"], after.Body["total"])
	}
	st := s.call(t, "GET", "/v1/pricing/sync/status", "", nil).must(t, http.StatusOK)
	if st.Body["mode"] != "import" || st.Body["version"] != after.Body["version"] {
		t.Fatalf("sync status after the import: %s", st.Raw)
	}
	for model, want := range small {
		if got := s.estimates(t, []string{model}, 100_000)[model]; got != want {
			t.Errorf("%s: imported %s, built-in %s", model, got, want)
		}
		if got := s.estimates(t, []string{model}, 300_000)[model]; got != large[model] {
			t.Errorf("%s above the tier: imported %s, built-in %s", model, got, large[model])
		}
	}
	// The file wins over the built-in table, dated prices included: the
	// snapshot still carries GPT-5.6 Luna's $1 input from before its cut.
	if e := s.call(t, "GET", "/v1/pricing/gpt-5.6-luna", "", nil); fmt.Sprint(e.Body["input_per_1k"]) != "0.001" {
		t.Errorf("gpt-5.6-luna after the import: %s", e.Raw)
	}

	// One negative rate skips that model only.
	bad := fixtureVariant(t, map[string]any{"gpt-4o-mini": map[string]any{"mode": "chat",
		"input_cost_per_token": -1.5e-07, "output_cost_per_token": 6e-07}})
	r = s.call(t, "POST", "/v1/pricing/import", adminToken, bad).must(t, http.StatusOK)
	if num(t, r.Body["imported"]) != float64(len(text)-1) || !strings.Contains(fmt.Sprint(r.Body["skipped"]), "negative") {
		t.Errorf("negative rate: %s", r.Raw)
	}

	// Ten models would drop most of the catalogue: refused, nothing changes.
	version := s.call(t, "GET", "/v1/pricing", "", nil).Body["version"]
	ten := map[string]any{}
	_ = json.Unmarshal(fixture, &ten)
	for k := range ten {
		if len(ten) > 10 {
			delete(ten, k)
		}
	}
	tenBody, _ := json.Marshal(ten)
	r = s.call(t, "POST", "/v1/pricing/import", adminToken, tenBody).must(t, http.StatusUnprocessableEntity)
	if !strings.Contains(errMessage(r), "mass-drop rule") || !strings.Contains(errMessage(r), "more than half") {
		t.Errorf("mass drop: %s", r.Raw)
	}
	if v := s.call(t, "GET", "/v1/pricing", "", nil).Body["version"]; v != version {
		t.Errorf("a refused import changed the catalogue: %v → %v", version, v)
	}
	s.call(t, "POST", "/v1/pricing/import", adminToken, "{not json").must(t, http.StatusBadRequest)
	s.call(t, "POST", "/v1/pricing/import", adminToken, "[1,2]").must(t, http.StatusUnprocessableEntity)

	// A restart keeps the last good catalogue.
	s.stop(t)
	s2 := start(t, map[string]string{"LLMCOST_DATABASE_URL": s.dbURL})
	if v := s2.call(t, "GET", "/v1/pricing", "", nil).must(t, http.StatusOK).Body["version"]; v != version {
		t.Errorf("after a restart: version %v, want %v", v, version)
	}
	if st := s2.call(t, "GET", "/v1/pricing/sync/status", "", nil); st.Body["mode"] != "import" {
		t.Errorf("sync status after a restart: %s", st.Raw)
	}
}
