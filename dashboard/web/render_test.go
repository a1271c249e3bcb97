package web

import (
	"net/http/httptest"
	"testing"
)

// TestTemplatesParse renders the sign-in page, which fails if any page's
// template does not parse.
func TestTemplatesParse(t *testing.T) {
	rec := httptest.NewRecorder()
	if err := Render(rec, 200, "login", Page{Data: struct{ Email, Next string }{}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"login", "register", "key", "error", "overview", "agents", "workflows", "traces", "trace", "guardrails", "models", "settings", "agent", "optimizations"} {
		if !Has(name) {
			t.Errorf("no template %s", name)
		}
	}
}
