package social

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Google verifies Google ID tokens.
type Google struct {
	// ClientIDs are the accepted audiences: this deployment's OAuth clients.
	ClientIDs []string
	// Issuers are the accepted iss values.
	Issuers []string
	Keys    *JWKS
	Now     func() time.Time
}

// DefaultGoogleIssuers are the two spellings Google signs with.
var DefaultGoogleIssuers = []string{"accounts.google.com", "https://accounts.google.com"}

// clockSkew is how far exp, nbf and iat may be off between us and Google.
const clockSkew = 30 * time.Second

// maxTokenLen refuses absurd inputs before any decoding.
const maxTokenLen = 16 << 10

type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

// audience is a JWT aud: one string or an array of them.
type audience []string

// UnmarshalJSON accepts a string or an array of strings.
func (a *audience) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*a = audience{s}
		return err
	}
	return json.Unmarshal(b, (*[]string)(a))
}

// flexBool accepts true and "true": Google has sent email_verified as both.
type flexBool bool

// UnmarshalJSON reads true or "true" as true and anything else as false.
func (f *flexBool) UnmarshalJSON(b []byte) error {
	*f = flexBool(string(b) == "true" || string(b) == `"true"`)
	return nil
}

type claims struct {
	Iss           string   `json:"iss"`
	Aud           audience `json:"aud"`
	Sub           string   `json:"sub"`
	Exp           *float64 `json:"exp"`
	Nbf           *float64 `json:"nbf"`
	Iat           *float64 `json:"iat"`
	Email         string   `json:"email"`
	EmailVerified flexBool `json:"email_verified"`
	Name          string   `json:"name"`
}

var b64 = base64.RawURLEncoding

// Verify checks an ID token and returns the identity it vouches for. Only
// RS256 is accepted, so "none" and HS256 tokens (including ones "signed"
// with the public key as an HMAC secret) fail before any key is used.
func (g *Google) Verify(ctx context.Context, token string) (Identity, error) {
	parts := strings.Split(token, ".")
	if len(token) > maxTokenLen || len(parts) != 3 {
		return Identity{}, invalidToken("not a signed JWT")
	}
	var h header
	if err := decodePart(parts[0], &h); err != nil {
		return Identity{}, err
	}
	if h.Alg != "RS256" {
		return Identity{}, invalidToken("the signing algorithm must be RS256")
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return Identity{}, invalidToken("the signature is not base64url")
	}
	key, err := g.Keys.Key(ctx, h.Kid)
	if err != nil {
		return Identity{}, err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig) != nil {
		return Identity{}, invalidToken("the signature does not verify")
	}
	var c claims
	if err := decodePart(parts[1], &c); err != nil {
		return Identity{}, err
	}
	if err := g.check(c); err != nil {
		return Identity{}, err
	}
	return Identity{Provider: "google", Subject: c.Sub, Email: strings.ToLower(c.Email),
		EmailVerified: bool(c.EmailVerified), Name: c.Name}, nil
}

func (g *Google) check(c claims) error {
	now := g.Now()
	at := func(f *float64) time.Time { return time.Unix(0, int64(*f*1e9)) }
	switch {
	case !slices.Contains(g.Issuers, c.Iss):
		return invalidToken("wrong issuer")
	case !slices.ContainsFunc(c.Aud, func(a string) bool { return slices.Contains(g.ClientIDs, a) }):
		return invalidToken("the audience is not this service's client id")
	case c.Exp == nil:
		return invalidToken("no expiry")
	case !now.Before(at(c.Exp).Add(clockSkew)):
		return invalidToken("expired")
	case c.Nbf != nil && now.Add(clockSkew).Before(at(c.Nbf)):
		return invalidToken("not valid yet")
	case c.Iat != nil && now.Add(clockSkew).Before(at(c.Iat)):
		return invalidToken("issued in the future")
	case c.Sub == "":
		return invalidToken("no subject")
	case c.Email == "":
		return invalidToken("no e-mail address; request the email scope")
	}
	return nil
}

func decodePart(part string, dst any) error {
	raw, err := b64.DecodeString(part)
	if err != nil {
		return invalidToken("a part is not base64url")
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(dst); err != nil {
		return invalidToken("a part is not JSON")
	}
	return nil
}
