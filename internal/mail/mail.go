// Package mail sends the account e-mails (address verification, password
// reset, team invitation) through an SMTP server with net/smtp. When no
// server is configured, Log stands in: it records that a mail would have
// been sent and to whom, never its body, which carries a secret token.
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	stdmail "net/mail"
	"net/smtp"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Message is one plain-text mail to one recipient.
type Message struct {
	To      string
	Subject string
	Body    string
	// Kind names the mail in logs (verify_email, reset_password, invitation).
	Kind string
}

// ErrAddress marks a sender or recipient address that does not parse: no
// retry can deliver that mail.
var ErrAddress = errors.New("invalid e-mail address")

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTP delivers through one SMTP server.
type SMTP struct {
	Host     string
	Port     int
	From     string // "Name <address>" or a bare address
	Username string
	Password string
	// StartTLS requires the server to offer STARTTLS and upgrades before
	// authenticating or sending anything.
	StartTLS bool
	// Timeout bounds one delivery, connection to QUIT; zero means 30 s.
	Timeout time.Duration
	// LocalName is sent in EHLO; empty means "localhost".
	LocalName string
}

// Send delivers m, within the context's deadline and Timeout.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	from, err := stdmail.ParseAddress(s.From)
	if err != nil {
		return fmt.Errorf("smtp from address: %w: %w", ErrAddress, err)
	}
	to, err := stdmail.ParseAddress(m.To)
	if err != nil {
		return fmt.Errorf("recipient address: %w: %w", ErrAddress, err)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := net.Dialer{}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(s.Host, strconv.Itoa(s.Port)))
	if err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, s.Host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if err := s.session(c, from.Address, to.Address, compose(from, to, m)); err != nil {
		return err
	}
	return c.Quit()
}

func (s *SMTP) session(c *smtp.Client, from, to string, msg []byte) error {
	name := s.LocalName
	if name == "" {
		name = "localhost"
	}
	if err := c.Hello(name); err != nil {
		return err
	}
	if s.StartTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return errors.New("smtp server does not offer STARTTLS, which starttls requires")
		}
		if err := c.StartTLS(&tls.Config{ServerName: s.Host, MinVersion: tls.VersionTLS12}); err != nil {
			return err
		}
	}
	if s.Username != "" {
		// PlainAuth itself refuses to send credentials unencrypted except
		// to localhost.
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, s.Host)); err != nil {
			return err
		}
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	return w.Close()
}

// compose renders the message: headers built only from parsed addresses
// and a subject stripped of line breaks (no header injection), and a
// quoted-printable body so any text survives 7-bit relays.
func compose(from, to *stdmail.Address, m Message) []byte {
	subject := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, m.Subject)
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\n", from.String())
	fmt.Fprintf(&b, "To: %s\r\n", to.String())
	// Long subjects become several encoded words; fold between them.
	fmt.Fprintf(&b, "Subject: %s\r\n", strings.ReplaceAll(mime.QEncoding.Encode("utf-8", subject), "?= =?", "?=\r\n =?"))
	fmt.Fprintf(&b, "Date: %s\r\n", time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id), domain)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	body := m.Body
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(body)) // text mode: line breaks become CRLF
	_ = qp.Close()
	return b.Bytes()
}

// Log is the Sender used when no SMTP server is configured: it logs the
// kind of mail and its recipient and delivers nothing.
type Log struct {
	Logger *zap.Logger
}

// Send logs that m was not sent.
func (l Log) Send(_ context.Context, m Message) error {
	l.Logger.Info("e-mail not sent: no SMTP server is configured",
		zap.String("kind", m.Kind), zap.String("to", m.To))
	return nil
}
