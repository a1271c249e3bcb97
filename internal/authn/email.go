package authn

import (
	"net/mail"
	"strings"
)

// NormalizeEmail is the one form in which llmcost stores and compares
// e-mail addresses: surrounding spaces trimmed and the ASCII letters A–Z
// lowercased, nothing else. Unicode case folding is deliberately not
// applied: it maps distinct addresses onto one (the Kelvin sign U+212A
// folds to "k", "ſ" to "s"), which would let the owner of one mailbox
// claim, reset or be invited as another person's account. Two addresses
// name the same account exactly when their normalised forms are equal
// byte for byte. ok is false for anything that is not a single plain
// address (no display name, no NUL, at most 254 bytes).
func NormalizeEmail(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 254 || strings.ContainsRune(s, 0) {
		return "", false
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s {
		return "", false
	}
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s), true
}
