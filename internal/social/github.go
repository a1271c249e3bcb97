package social

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/internal/apierr"
)

// GitHub exchanges OAuth authorization codes and reads the user.
type GitHub struct {
	ClientID     string
	ClientSecret string
	// TokenURL is where codes are exchanged
	// (https://github.com/login/oauth/access_token).
	TokenURL string
	// APIURL is the REST API root (https://api.github.com).
	APIURL string
	Client *http.Client
}

type ghToken struct {
	AccessToken string `json:"access_token"`
	Error       string `json:"error"`
}

type ghUser struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
	Name  string `json:"name"`
}

type ghEmail struct {
	Email    string `json:"email"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// Exchange turns a code into the identity of the GitHub user who granted
// it. The e-mail is the verified primary address; without one, Identity
// has EmailVerified false and cannot be linked to an account by e-mail.
func (g *GitHub) Exchange(ctx context.Context, code, redirectURI string) (Identity, error) {
	form := url.Values{"client_id": {g.ClientID}, "client_secret": {g.ClientSecret}, "code": {code}}
	if redirectURI != "" {
		form.Set("redirect_uri", redirectURI)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return Identity{}, apierr.Unavailablef(err, "GitHub sign-in is misconfigured")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	var tok ghToken
	if err := g.do(req, &tok); err != nil {
		return Identity{}, err
	}
	if tok.AccessToken == "" {
		// GitHub answers 200 with an error for a bad, used or expired code.
		return Identity{}, apierr.New(apierr.Unauthorized, "GitHub refused the authorization code").
			WithHint("codes are single use and expire after 10 minutes; start the sign-in again")
	}
	var u ghUser
	if err := g.get(ctx, "/user", tok.AccessToken, &u); err != nil {
		return Identity{}, err
	}
	var emails []ghEmail
	if err := g.get(ctx, "/user/emails", tok.AccessToken, &emails); err != nil {
		return Identity{}, err
	}
	if u.ID == 0 {
		return Identity{}, apierr.New(apierr.Unauthorized, "GitHub did not identify the user")
	}
	id := Identity{Provider: "github", Subject: strconv.FormatInt(u.ID, 10), Name: u.Name}
	if id.Name == "" {
		id.Name = u.Login
	}
	for _, e := range emails {
		if e.Primary {
			id.Email, id.EmailVerified = strings.ToLower(e.Email), e.Verified
		}
	}
	return id, nil
}

func (g *GitHub) get(ctx context.Context, path, token string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(g.APIURL, "/")+path, nil)
	if err != nil {
		return apierr.Unavailablef(err, "GitHub sign-in is misconfigured")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	return g.do(req, dst)
}

// do sends req and decodes a 200 JSON reply. The provider being away or
// failing is a 503 for our client; a refusal of the credential is a 401.
func (g *GitHub) do(req *http.Request, dst any) error {
	resp, err := g.Client.Do(req)
	if err != nil {
		return apierr.Unavailablef(err, "GitHub could not be reached")
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return apierr.New(apierr.Unauthorized, "GitHub refused the access token")
	case resp.StatusCode != http.StatusOK:
		return apierr.Unavailablef(fmt.Errorf("%s %s answered %d", req.Method, req.URL.Path, resp.StatusCode),
			"GitHub is unavailable")
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(dst); err != nil {
		return apierr.Unavailablef(err, "GitHub answered something unexpected")
	}
	return nil
}
