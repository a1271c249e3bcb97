package dashboard

import "testing"

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{"/agents?range=7d": "/agents?range=7d", "//evil.example/": "/",
		"https://evil.example/": "/", "/\\evil.example": "/", "": "/", "agents": "/"} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}
