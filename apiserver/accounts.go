package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/authn"
	"github.com/llmcost/llmcost/internal/mail"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/ratelimit"
	"github.com/llmcost/llmcost/internal/social"
)

// Accounts is what the account endpoints need beyond the store.
type Accounts struct {
	// Mailer delivers account mails; nil means none is configured: mails
	// are logged (kind and recipient only) and reported as not sent.
	Mailer mail.Sender
	// PublicURL is the base of the links in mails.
	PublicURL string
	// Google and GitHub enable social sign-in; nil turns one off.
	Google *social.Google
	GitHub *social.GitHub
}

// Jobs is the durable job runner as the handlers see it; jobs.Runner
// (internal/jobs) is the one the extension passes.
type Jobs interface {
	// SendMail queues m for delivery, retried with backoff until sent.
	SendMail(ctx context.Context, m mail.Message) error
}

// Account lifetimes and limits (docs/accounts.md).
const (
	VerifyTokenTTL   = 24 * time.Hour
	ResetTokenTTL    = time.Hour
	InvitationTTL    = 7 * 24 * time.Hour
	LastActiveWindow = 5 * time.Minute
	MailsPerHour     = 3
)

// accountState is the server's own account machinery: the per-address
// mail limiters and the background work that must finish before shutdown.
type accountState struct {
	resets   *ratelimit.SharedSliding // reset-request, by normalised e-mail
	verifies *ratelimit.SharedSliding // verification resends, by user
	bg       sync.WaitGroup
}

// newAccountState counts the mail limits in log, shared by every instance
// of the deployment (nil: in this process only).
func newAccountState(now func() time.Time, log ratelimit.EventLog) *accountState {
	a := &accountState{resets: ratelimit.NewSharedSliding(MailsPerHour, time.Hour, log),
		verifies: ratelimit.NewSharedSliding(MailsPerHour, time.Hour, log)}
	a.resets.Now, a.verifies.Now = now, now
	return a
}

// allowMail counts one mail of a kind ("reset", "verify") for who against
// its hourly limit. The key is a hash: the store never holds addresses.
// When the shared count cannot be kept the process's own count decides,
// and the log says so.
func (s *Server) allowMail(ctx context.Context, l *ratelimit.SharedSliding, kind, who string) (bool, time.Duration) {
	sum := sha256.Sum256([]byte(who))
	ok, retry, err := l.Allow(ctx, kind+":"+hex.EncodeToString(sum[:]))
	if err != nil {
		s.Logger.Warn("mail limit counted in this process only: the shared count failed",
			zap.String("kind", kind), zap.Error(err))
	}
	return ok, retry
}

// later runs f in the background, detached from the request, and counted
// so Drain can wait for it.
func (s *Server) later(what string, f func(ctx context.Context) error) {
	s.acct.bg.Add(1)
	go func() {
		defer s.acct.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := f(ctx); err != nil {
			s.Logger.Warn("background account work failed", zap.String("what", what), zap.Error(err))
		}
	}()
}

// Drain waits for background work (mails being sent) until ctx ends.
func (s *Server) Drain(ctx context.Context) {
	done := make(chan struct{})
	go func() { s.acct.bg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (s *Server) mailer() mail.Sender {
	if s.Accounts.Mailer == nil {
		return mail.Log{Logger: s.Logger}
	}
	return s.Accounts.Mailer
}

// mailLater queues m on the job runner, which retries it until it is
// sent. Without a runner, or when it cannot take the job (the database is
// away), m is sent once from a goroutine; failures are logged without the
// body.
func (s *Server) mailLater(m mail.Message) {
	if s.Jobs != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := s.Jobs.SendMail(ctx, m)
		cancel()
		if err == nil {
			return
		}
		s.Logger.Warn("e-mail could not be queued; trying once now", zap.String("kind", m.Kind), zap.Error(err))
	}
	s.later("mail "+m.Kind, func(ctx context.Context) error {
		if err := s.mailer().Send(ctx, m); err != nil {
			s.Logger.Warn("e-mail could not be sent", zap.String("kind", m.Kind), zap.String("to", m.To), zap.Error(err))
		}
		return nil
	})
}

func (s *Server) link(path, token string) string {
	return strings.TrimRight(s.Accounts.PublicURL, "/") + path + "?token=" + token
}

// sendVerification issues a verification token for u and mails it in the
// background. It reports whether a mail is on its way: false without a
// configured mailer, where the user could never receive it.
func (s *Server) sendVerification(ctx context.Context, u postgres.User) bool {
	if s.Accounts.Mailer == nil {
		s.mailer().Send(ctx, mail.Message{Kind: "verify_email", To: u.Email}) //nolint:errcheck // only logs
		return false
	}
	token := authn.NewToken("lcv_")
	now := s.Now()
	if err := s.DB.CreateAccountToken(ctx, postgres.PurposeVerifyEmail, u.ID, u.Email, authn.Hash(token),
		now.Add(VerifyTokenTTL), now); err != nil {
		s.Logger.Warn("verification token not stored", zap.Error(err))
		return false
	}
	s.mailLater(mail.Message{Kind: "verify_email", To: u.Email, Subject: "Confirm your e-mail address for llmcost",
		Body: "Hello,\n\nconfirm that " + u.Email + " is your address for llmcost by opening this link:\n\n" +
			s.link("/verify-email", token) + "\n\n" +
			"(or send the token from the link to POST /v1/auth/verify-email as {\"token\": \"...\"}).\n" +
			"The link expires in 24 hours and works once. If you did not create an llmcost account, ignore this mail.\n"})
	return true
}

// sendReset mails a password-reset link to the account of email, if any.
// It runs in the background, so the reply's timing is the same whether or
// not the address has an account.
func (s *Server) sendReset(email string) {
	s.later("password reset", func(ctx context.Context) error {
		u, err := s.DB.UserByEmail(ctx, email)
		if err != nil {
			if isNotFound(err) {
				return nil
			}
			return err
		}
		token := authn.NewToken("lcp_")
		now := s.Now()
		if err := s.DB.CreateAccountToken(ctx, postgres.PurposeResetPassword, u.ID, u.Email, authn.Hash(token),
			now.Add(ResetTokenTTL), now); err != nil {
			return err
		}
		s.mailLater(mail.Message{Kind: "reset_password", To: u.Email, Subject: "Reset your llmcost password",
			Body: "Hello,\n\nsomeone asked to reset the password of the llmcost account " + u.Email + ".\n" +
				"Choose a new password by opening this link:\n\n" + s.link("/reset-password", token) + "\n\n" +
				"(or send the token from the link with a new_password to POST /v1/auth/password/reset).\n" +
				"The link expires in 1 hour and works once; using it signs you out everywhere.\n" +
				"If you did not ask for this, ignore this mail: your password stays as it is.\n"})
		return nil
	})
}

// sendInvitation mails an invitation to a project.
func (s *Server) sendInvitation(to string, proj postgres.Project, inviter postgres.User, role string) {
	who := inviter.Email
	if inviter.Name != "" {
		who = inviter.Name + " (" + inviter.Email + ")"
	}
	s.mailLater(mail.Message{Kind: "invitation", To: to, Subject: "You are invited to the project " + proj.Name + " on llmcost",
		Body: "Hello,\n\n" + who + " invited you to the llmcost project \"" + proj.Name + "\" as " + role + ".\n\n" +
			"Sign in, or register with this address (" + to + ") and confirm it, at " +
			strings.TrimRight(s.Accounts.PublicURL, "/") + ", then accept the invitation\n" +
			"(POST /v1/projects/" + proj.ID + "/invitations/accept). It expires in 7 days.\n"})
}

// tooMany answers 429 in the rate limit's shape (docs/api.md "Rate limits").
func tooMany(w http.ResponseWriter, retry time.Duration, limit int, period time.Duration, what string) error {
	secs := int((retry + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return ok(w, http.StatusTooManyRequests, wire.RateLimited{
		Detail:     "Rate limit exceeded: " + strconv.Itoa(limit) + " " + what + " per hour",
		RetryAfter: secs, Limit: limit, Period: int(period.Seconds()),
	})
}
