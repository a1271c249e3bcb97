package authn

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"math/big"
	"strings"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// APIKeyPrefix starts every project key: "sk_" as the spec says, plus a
// vendor tag so secret scanners can tell our keys from other sk_ keys.
const APIKeyPrefix = "sk_llmc_"

const (
	keyRandomLen   = 30 // 30 base62 characters ≈ 178 bits
	keyChecksumLen = 6  // base62 CRC32 of the random part
	// KeyDisplayLen is how much of a key is kept in clear as its prefix.
	KeyDisplayLen = len(APIKeyPrefix) + 4
)

// randomBase62 returns n characters drawn uniformly from base62.
func randomBase62(n int) string {
	var sb strings.Builder
	max := big.NewInt(int64(len(base62)))
	for range n {
		i, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		sb.WriteByte(base62[i.Int64()])
	}
	return sb.String()
}

func checksum(s string) string {
	c := uint64(crc32.ChecksumIEEE([]byte(s)))
	out := make([]byte, keyChecksumLen)
	for i := keyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[c%62]
		c /= 62
	}
	return string(out)
}

// NewAPIKey returns a fresh project key: sk_llmc_<30 random><6 checksum>.
func NewAPIKey() string {
	r := randomBase62(keyRandomLen)
	return APIKeyPrefix + r + checksum(r)
}

// ValidAPIKey checks a key's shape and checksum offline, so a mistyped or
// made-up key is refused before any database look-up.
func ValidAPIKey(key string) bool {
	if len(key) != len(APIKeyPrefix)+keyRandomLen+keyChecksumLen || !strings.HasPrefix(key, APIKeyPrefix) {
		return false
	}
	body := key[len(APIKeyPrefix):]
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62, body[i]) < 0 {
			return false
		}
	}
	return checksum(body[:keyRandomLen]) == body[keyRandomLen:]
}

// IsAPIKey reports whether a bearer value claims to be an API key.
func IsAPIKey(bearer string) bool { return strings.HasPrefix(bearer, "sk_") }

// KeyPrefix is the displayable start of a key.
func KeyPrefix(key string) string {
	if len(key) < KeyDisplayLen {
		return key
	}
	return key[:KeyDisplayLen]
}

// NewToken returns an opaque session token (≈256 bits) with a readable prefix.
func NewToken(prefix string) string { return prefix + randomBase62(43) }

// Hash is the stored form of a key or token: SHA-256 suffices because the
// secrets carry far more than 112 bits of entropy.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}
