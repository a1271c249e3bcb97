// Package social verifies sign-ins at identity providers: Google ID tokens
// (RS256 JWTs checked against the provider's JWKS, issuer, audience and
// expiry) and GitHub OAuth codes (exchanged for a token that reads the user
// and their verified primary e-mail). Every URL is configuration, so tests
// run against local servers. Only the standard library is used: one
// algorithm, RS256, is all Google signs with, and accepting exactly one is
// the point.
package social

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Identity is what a provider vouches for about its user.
type Identity struct {
	Provider      string
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

// JWKS fetches and caches a provider's signing keys.
type JWKS struct {
	URL    string
	Client *http.Client
	Now    func() time.Time

	mu      sync.Mutex
	keys    map[string]*rsa.PublicKey
	fetched time.Time
	expires time.Time
}

// Key-set caching bounds: a fetch is reused until the response's max-age
// (within these bounds), and an unknown key id triggers at most one early
// refetch per minRefetch, so forged kids cannot hammer the provider.
const (
	defaultKeyTTL = time.Hour
	minKeyTTL     = time.Minute
	maxKeyTTL     = 24 * time.Hour
	minRefetch    = time.Minute
)

// Key returns the RSA key with id kid.
func (j *JWKS) Key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.Now()
	if k, ok := j.keys[kid]; ok && now.Before(j.expires) {
		return k, nil
	}
	if j.keys != nil && now.Before(j.expires) && now.Sub(j.fetched) < minRefetch {
		return nil, invalidToken("the token's key id is not among the provider's keys")
	}
	keys, ttl, err := j.fetch(ctx)
	if err != nil {
		if k, ok := j.keys[kid]; ok { // a stale key beats failing every sign-in
			return k, nil
		}
		return nil, apierr.Unavailablef(err, "the identity provider's keys could not be fetched")
	}
	j.keys, j.fetched, j.expires = keys, now, now.Add(ttl)
	if k, ok := keys[kid]; ok {
		return k, nil
	}
	return nil, invalidToken("the token's key id is not among the provider's keys")
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
}

func (j *JWKS) fetch(ctx context.Context) (map[string]*rsa.PublicKey, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.URL, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := j.Client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("JWKS %s answered %d", j.URL, resp.StatusCode)
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, 0, fmt.Errorf("JWKS %s: %w", j.URL, err)
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "RSA" || (k.Use != "" && k.Use != "sig") || (k.Alg != "" && k.Alg != "RS256") {
			continue
		}
		if pub, err := rsaKey(k); err == nil {
			keys[k.Kid] = pub
		}
	}
	return keys, maxAge(resp.Header.Get("Cache-Control")), nil
}

func rsaKey(k jwk) (*rsa.PublicKey, error) {
	n, err1 := base64.RawURLEncoding.DecodeString(k.N)
	e, err2 := base64.RawURLEncoding.DecodeString(k.E)
	if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
		return nil, fmt.Errorf("malformed RSA key %q", k.Kid)
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	if pub.N.BitLen() < 2048 || pub.E < 3 {
		return nil, fmt.Errorf("RSA key %q is too weak", k.Kid)
	}
	return pub, nil
}

func maxAge(cacheControl string) time.Duration {
	for _, part := range strings.Split(cacheControl, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "max-age="); ok {
			if secs, err := strconv.Atoi(v); err == nil {
				return min(max(time.Duration(secs)*time.Second, minKeyTTL), maxKeyTTL)
			}
		}
	}
	return defaultKeyTTL
}

func invalidToken(why string) error {
	return apierr.New(apierr.Unauthorized, "invalid ID token: "+why)
}
