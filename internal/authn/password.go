// Package authn holds the credential primitives: argon2id password hashes in
// PHC form, opaque session tokens, and checksummed API keys. Secrets are only
// ever stored as hashes.
package authn

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters; Default is OWASP's minimum
// recommendation (19 MiB, 2 passes, 1 lane).
type Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// Default is the cost every new hash uses.
var Default = Params{MemoryKiB: 19456, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
)

// hashSlots bounds concurrent hashing: each hash allocates ~20 MB, so 50
// simultaneous logins must queue instead of taking a gigabyte.
var hashSlots = make(chan struct{}, 4)

// HashPassword returns the PHC string of pw under Default.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	return encode(Default, salt, derive(Default, []byte(pw), salt)), nil
}

// VerifyPassword reports whether pw matches the PHC hash, and whether the
// hash used weaker parameters than Default and should be replaced.
func VerifyPassword(hash, pw string) (ok, rehash bool, err error) {
	p, salt, key, err := decode(hash)
	if err != nil {
		return false, false, err
	}
	got := derive(p, []byte(pw), salt)
	ok = subtle.ConstantTimeCompare(got, key) == 1
	return ok, ok && p != Default, nil
}

// dummyHash is verified against when the account does not exist, so a login
// for an unknown e-mail costs the same time as a wrong password.
var dummyHash, _ = HashPassword("llmcost-dummy-password")

// BurnVerify spends the time of one verification and always fails.
func BurnVerify(pw string) {
	_, _, _ = VerifyPassword(dummyHash, pw)
}

func derive(p Params, pw, salt []byte) []byte {
	hashSlots <- struct{}{}
	defer func() { <-hashSlots }()
	return argon2.IDKey(pw, salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
}

var b64 = base64.RawStdEncoding

func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

var errBadHash = errors.New("not an argon2id PHC hash")

func decode(hash string) (Params, []byte, []byte, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return Params{}, nil, nil, errBadHash
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return Params{}, nil, nil, errBadHash
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) == 0 {
		return Params{}, nil, nil, errBadHash
	}
	return p, salt, key, nil
}
