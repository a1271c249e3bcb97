package apiserver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
)

const (
	testAnthropicKey = "sk-ant-admin01-Secret-Key-Value-9WXYZ"
	testOpenAIKey    = "sk-admin-Secret-Key-Value-0000-ABCD"
)

func TestConnectionLifecycle(t *testing.T) {
	e := newEnv(t)
	u := e.register("conn")
	base := "/v1/projects/" + u.ProjectID + "/connections"
	r := e.must(e.do("PUT", base+"/anthropic", u.Access, map[string]any{"admin_key": testAnthropicKey,
		"workspace_ids": []string{"wrkspc_b", "wrkspc_a"}, "backfill_days": 14, "tolerance_percent": 1.5}), 201)
	if r.str("provider") != "anthropic" || r.str("key_hint") != "WXYZ" || r.str("sync_status") != "pending" ||
		r.Body["backfill_days"].(float64) != 14 || r.Body["tolerance_percent"].(float64) != 1.5 {
		t.Fatalf("connection read %s", r.Raw)
	}
	if ws := r.Body["workspace_ids"].([]any); len(ws) != 2 || ws[0] != "wrkspc_a" {
		t.Fatalf("workspace_ids %v, want sorted", ws)
	}
	if strings.Contains(r.Raw, "Secret-Key") || r.Body["admin_key"] != nil {
		t.Fatalf("the key is returned: %s", r.Raw)
	}
	// Replacing without a key keeps the stored one; the defaults apply again.
	r = e.must(e.do("PUT", base+"/anthropic", u.Access, map[string]any{}), 200)
	if r.str("key_hint") != "WXYZ" || r.Body["backfill_days"].(float64) != 30 || r.Body["tolerance_percent"].(float64) != 2 {
		t.Fatalf("replaced read %s", r.Raw)
	}
	e.must(e.do("PUT", base+"/openai", u.Access, map[string]any{"admin_key": testOpenAIKey, "project_ids": []string{"proj_1"}}), 201)
	list := e.must(e.do("GET", base, u.Access, nil), 200)
	if list.Body["total"].(float64) != 2 || strings.Contains(list.Raw, "Secret-Key") {
		t.Fatalf("list %s", list.Raw)
	}
	// The key is sealed at rest: not in the table, not in the logs.
	var raw string
	if err := e.db.Pool.QueryRow(context.Background(),
		`SELECT string_agg(encode(key_sealed, 'escape') || key_hint, ',') FROM provider_connections`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(raw, "Secret-Key") {
		t.Fatal("the admin key is stored in plain text")
	}
	for _, entry := range e.logs.All() {
		if strings.Contains(fmt.Sprint(entry.Message, entry.ContextMap()), "Secret-Key") {
			t.Fatalf("the admin key is logged: %v", entry)
		}
	}
	e.must(e.do("POST", base+"/openai/sync", u.Access, nil), 202)
	e.must(e.do("DELETE", base+"/openai", u.Access, nil), 204)
	e.must(e.do("DELETE", base+"/openai", u.Access, nil), 404)
	e.must(e.do("POST", base+"/openai/sync", u.Access, nil), 404)
}

func TestConnectionValidation(t *testing.T) {
	e := newEnv(t)
	u := e.register("connbad")
	base := "/v1/projects/" + u.ProjectID + "/connections"
	cases := []struct {
		path string
		body map[string]any
		want string
	}{
		{"/mistral", map[string]any{"admin_key": testAnthropicKey}, "provider: must be anthropic or openai"},
		{"/anthropic", map[string]any{}, "admin_key: is required"},
		{"/anthropic", map[string]any{"admin_key": "sk-ant-api03-a-regular-key-000000"}, "admin_key: must be a anthropic admin key"},
		{"/openai", map[string]any{"admin_key": testAnthropicKey}, "admin_key: must be a openai admin key"},
		{"/openai", map[string]any{"admin_key": "sk-admin-short"}, "admin_key: must be 20 to 512 characters"},
		{"/openai", map[string]any{"admin_key": testOpenAIKey, "workspace_ids": []string{"wrkspc_a"}}, "workspace_ids: is for anthropic"},
		{"/anthropic", map[string]any{"admin_key": testAnthropicKey, "project_ids": []string{"proj_a"}}, "project_ids: is for openai"},
		{"/anthropic", map[string]any{"admin_key": testAnthropicKey, "api_key_ids": []string{"ok", "bad id"}}, "api_key_ids[1]: must be"},
		{"/anthropic", map[string]any{"admin_key": testAnthropicKey, "backfill_days": 91}, "backfill_days: must be an integer from 1 to 90"},
		{"/anthropic", map[string]any{"admin_key": testAnthropicKey, "tolerance_percent": 101}, "tolerance_percent: must be a number from 0 to 100"},
		{"/anthropic", map[string]any{"admin_key": testAnthropicKey, "tolerance_percent": -1}, "tolerance_percent: must be"},
		{"/anthropic", map[string]any{"admin_key": testAnthropicKey, "tolerance_percent": 0.001}, "tolerance_percent: must be"},
	}
	for _, c := range cases {
		r := e.must(e.do("PUT", base+c.path, u.Access, c.body), 422)
		if msg := r.obj("error")["message"].(string); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s %v: message %q, want %q…", c.path, c.body, msg, c.want)
		}
	}
	if list := e.must(e.do("GET", base, u.Access, nil), 200); list.Body["total"].(float64) != 0 {
		t.Fatalf("a refused connection was stored: %s", list.Raw)
	}
}

func TestConnectionWithoutSecret(t *testing.T) {
	e := newEnv(t)
	d := e.deps(zap.NewNop())
	d.Keys = nil
	h := New(d).Handler()
	u := e.register("nosecret")
	r := e.doAs(h, "PUT", "/v1/projects/"+u.ProjectID+"/connections/openai", u.Access, map[string]any{"admin_key": testOpenAIKey})
	if r.Status != 501 || !strings.Contains(r.obj("error")["hint"].(string), "LLMCOST_SECRET_KEY") {
		t.Fatalf("without a secret: %d %s", r.Status, r.Raw)
	}
}

// syncCounter counts the syncs asked of the job queue.
type syncCounter struct{ n int }

func (c *syncCounter) SyncNow(context.Context) error { c.n++; return nil }

// A new connection, key or scope starts its sync at once; a new tolerance
// waits for the connection's next sync.
func TestConnectionStartsSyncs(t *testing.T) {
	e := newEnv(t)
	d := e.deps(zap.NewNop())
	q := &syncCounter{}
	d.Syncs = q
	h := New(d).Handler()
	u := e.register("syncs")
	path := "/v1/projects/" + u.ProjectID + "/connections/openai"
	steps := []struct {
		body map[string]any
		want int
	}{
		{map[string]any{"admin_key": testOpenAIKey}, 1},
		{map[string]any{"tolerance_percent": 5}, 1},
		{map[string]any{"project_ids": []string{"proj_a"}}, 2},
	}
	for i, s := range steps {
		if r := e.doAs(h, "PUT", path, u.Access, s.body); r.Status >= 300 || q.n != s.want {
			t.Fatalf("step %d: %d %s, %d syncs, want %d", i, r.Status, r.Raw, q.n, s.want)
		}
	}
	if r := e.doAs(h, "POST", path+"/sync", u.Access, nil); r.Status != 202 || q.n != 3 {
		t.Fatalf("sync now: %d, %d syncs", r.Status, q.n)
	}
}
