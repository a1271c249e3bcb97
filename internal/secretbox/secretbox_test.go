package secretbox

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const secret = "0123456789abcdef0123456789abcdef"

func TestSealOpen(t *testing.T) {
	b, err := New(secret)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("sk-ant-admin01-abcdefghijklmnop")
	aad := []byte("project-1/anthropic")
	s1, err := b.Seal(key, aad)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := b.Seal(key, aad)
	if bytes.Equal(s1, s2) {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	if bytes.Contains(s1, key) || bytes.Contains(s1, []byte("sk-ant")) {
		t.Fatal("the sealed value contains the plain key")
	}
	got, err := b.Open(s1, aad)
	if err != nil || !bytes.Equal(got, key) {
		t.Fatalf("open: %q, %v", got, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	b, _ := New(secret)
	other, _ := New(strings.Repeat("x", 40))
	aad := []byte("project-1/openai")
	sealed, _ := b.Seal([]byte("sk-admin-1234"), aad)
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	cases := map[string]func() ([]byte, error){
		"another secret":  func() ([]byte, error) { return other.Open(sealed, aad) },
		"another row":     func() ([]byte, error) { return b.Open(sealed, []byte("project-2/openai")) },
		"a flipped byte":  func() ([]byte, error) { return b.Open(flipped, aad) },
		"truncated":       func() ([]byte, error) { return b.Open(sealed[:10], aad) },
		"unknown version": func() ([]byte, error) { return b.Open(append([]byte{9}, sealed[1:]...), aad) },
	}
	for name, open := range cases {
		if _, err := open(); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: got %v, want ErrOpen", name, err)
		}
	}
}

func TestNewRefusesShortSecret(t *testing.T) {
	if _, err := New(strings.Repeat("a", MinSecretLen-1)); err == nil {
		t.Fatal("a 31-character secret was accepted")
	}
	if _, err := New(""); err == nil {
		t.Fatal("an empty secret was accepted")
	}
}
