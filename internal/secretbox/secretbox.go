// Package secretbox encrypts the provider admin keys llmcost stores:
// AES-256-GCM under a key derived from the deployment's secret, with the
// row the ciphertext belongs to as associated data, so a ciphertext copied
// into another project's row does not open. Standard library only.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// MinSecretLen is the shortest deployment secret accepted: 32 characters,
// as many bytes as the AES-256 key derived from it.
const MinSecretLen = 32

// version prefixes every sealed value so a later scheme can be told apart.
const version byte = 1

// info binds the derived key to its use: the same secret used elsewhere
// derives another key.
const info = "llmcost provider admin keys v1"

// ErrOpen is returned for a value that does not open: another secret, a
// changed row, or corrupted bytes. It never says which.
var ErrOpen = errors.New("secretbox: the stored value does not open with this secret")

// Box seals and opens values under one deployment secret.
type Box struct {
	aead cipher.AEAD
}

// New derives the key from secret. A secret shorter than MinSecretLen is
// refused rather than padded: a weak secret would make every stored key
// only as strong as it.
func New(secret string) (*Box, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("secretbox: the secret must be at least %d characters, got %d", MinSecretLen, len(secret))
	}
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, info, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plain for the row named by aad: version, random nonce,
// ciphertext and tag.
func (b *Box) Seal(plain, aad []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize(), 1+b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out := append([]byte{version}, nonce...)
	return b.aead.Seal(out, nonce, plain, aad), nil
}

// Open decrypts a value Seal made for the same aad.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < 1+n+b.aead.Overhead() || sealed[0] != version {
		return nil, ErrOpen
	}
	plain, err := b.aead.Open(nil, sealed[1:1+n], sealed[1+n:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}
