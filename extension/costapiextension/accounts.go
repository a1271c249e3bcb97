package costapiextension

import (
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver"
	"github.com/llmcost/llmcost/internal/mail"
	"github.com/llmcost/llmcost/internal/social"
)

// providerTimeout bounds each call to an identity provider.
const providerTimeout = 10 * time.Second

// accounts builds the account endpoints' mailer and sign-in providers
// from the configuration, and logs which are on (never their secrets).
func (a *AccountsConfig) accounts(log *zap.Logger) apiserver.Accounts {
	out := apiserver.Accounts{PublicURL: a.PublicURL}
	client := &http.Client{Timeout: providerTimeout}
	if s := a.SMTP; s.Host != "" {
		out.Mailer = &mail.SMTP{Host: s.Host, Port: s.Port, From: s.From, Username: s.Username,
			Password: string(s.Password), StartTLS: s.StartTLS, Timeout: s.Timeout}
		log.Info("account mail goes through SMTP", zap.String("host", s.Host), zap.Int("port", s.Port),
			zap.Bool("starttls", s.StartTLS))
	} else {
		log.Info("no SMTP server configured: account mails are not sent")
	}
	if g := a.Google; len(g.ClientIDs) > 0 {
		out.Google = &social.Google{ClientIDs: trimAll(g.ClientIDs), Issuers: trimAll(g.Issuers), Now: time.Now,
			Keys: &social.JWKS{URL: g.JWKSURL, Client: client, Now: time.Now}}
		log.Info("Google sign-in is on", zap.Int("client_ids", len(g.ClientIDs)))
	}
	if g := a.GitHub; g.ClientID != "" {
		out.GitHub = &social.GitHub{ClientID: g.ClientID, ClientSecret: string(g.ClientSecret),
			TokenURL: g.TokenURL, APIURL: g.APIURL, Client: client}
		log.Info("GitHub sign-in is on")
	}
	return out
}

func trimAll(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
