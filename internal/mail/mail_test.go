package mail_test

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmcost/llmcost/internal/mail"
	"github.com/llmcost/llmcost/internal/mail/smtptest"
)

func TestSMTPDeliversDecodableMail(t *testing.T) {
	srv := smtptest.Start(t)
	s := &mail.SMTP{Host: srv.Host(), Port: srv.Port(), From: "llmcost <no-reply@example.com>"}
	body := "Héllo,\n.a line that starts with a dot\nopen https://app.example.com/verify?token=lcv_abc123\n" +
		strings.Repeat("x", 200) + "\n"
	err := s.Send(context.Background(), mail.Message{To: "ann@example.com",
		Subject: "Projet «Ünïcode»\r\nBcc: evil@example.com", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	m := srv.Wait(t, "ann@example.com", "Projet", 1)
	switch {
	case m.From != "no-reply@example.com":
		t.Errorf("MAIL FROM %q", m.From)
	case m.Header.Get("Bcc") != "" || strings.Contains(m.Raw, "\r\nBcc:"):
		t.Errorf("a line break in the subject injected a header:\n%s", m.Raw)
	case m.Subject != "Projet «Ünïcode»  Bcc: evil@example.com":
		t.Errorf("subject %q", m.Subject)
	case strings.ReplaceAll(m.Body, "\r\n", "\n") != body:
		t.Errorf("body changed in transit:\n%q\nwant\n%q", m.Body, body)
	case m.Token(t) != "lcv_abc123":
		t.Errorf("token %q", m.Token(t))
	}
	for _, line := range strings.Split(m.Raw, "\r\n") {
		if len(line) > 998 {
			t.Errorf("line longer than RFC 5322 allows: %q", line)
		}
	}
}

func TestSMTPStartTLSRequiredButNotOffered(t *testing.T) {
	srv := smtptest.Start(t)
	s := &mail.SMTP{Host: srv.Host(), Port: srv.Port(), From: "no-reply@example.com", StartTLS: true}
	err := s.Send(context.Background(), mail.Message{To: "ann@example.com", Subject: "s", Body: "b"})
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("sent without the required STARTTLS: %v", err)
	}
	if len(srv.Messages()) != 0 {
		t.Fatal("a message was accepted")
	}
}

func TestSMTPUnreachableFails(t *testing.T) {
	srv := smtptest.Start(t)
	s := &mail.SMTP{Host: srv.Host(), Port: 1, From: "no-reply@example.com"} // nothing listens on port 1
	if err := s.Send(context.Background(), mail.Message{To: "ann@example.com", Subject: "s", Body: "b"}); err == nil {
		t.Fatal("no error from an unreachable server")
	}
}

func TestLogSenderNeverLogsTheBody(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	err := mail.Log{Logger: zap.New(core)}.Send(context.Background(),
		mail.Message{To: "ann@example.com", Subject: "Reset", Body: "token=lcp_secret", Kind: "reset_password"})
	if err != nil {
		t.Fatal(err)
	}
	all := logs.All()
	if len(all) != 1 {
		t.Fatalf("%d log entries", len(all))
	}
	fields := all[0].ContextMap()
	if fields["to"] != "ann@example.com" || fields["kind"] != "reset_password" {
		t.Errorf("fields %v", fields)
	}
	for _, v := range fields {
		if strings.Contains(v.(string), "lcp_secret") {
			t.Fatal("the token was logged")
		}
	}
}
