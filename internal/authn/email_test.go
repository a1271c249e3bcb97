package authn

import "testing"

func TestNormalizeEmailFoldsASCIIOnly(t *testing.T) {
	cases := []struct{ in, want string }{
		{" Dana@Example.COM ", "dana@example.com"},
		{"\u212Aelvin@example.com", "\u212Aelvin@example.com"}, // Kelvin sign: not "kelvin@"
		{"\u017Fam@example.com", "\u017Fam@example.com"},       // long s: not "sam@"
		{"ÄRGER@example.com", "Ärger@example.com"},
	}
	for _, c := range cases {
		got, ok := NormalizeEmail(c.in)
		if !ok || got != c.want {
			t.Errorf("NormalizeEmail(%q) = %q %v, want %q", c.in, got, ok, c.want)
		}
	}
	if a, _ := NormalizeEmail("\u212Aelvin@example.com"); a == "kelvin@example.com" {
		t.Fatal("the Kelvin sign claims the ASCII address")
	}
	for _, bad := range []string{"", "a\x00b@example.com", "Dana <dana@example.com>", "no-at-sign", "a@b@c"} {
		if _, ok := NormalizeEmail(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
