// Package smtptest runs a real SMTP listener on 127.0.0.1 for tests. It
// speaks enough of RFC 5321 for net/smtp (EHLO/HELO, MAIL, RCPT, DATA,
// RSET, NOOP, QUIT; no TLS, no AUTH) and keeps every message it accepts,
// decoded, so tests can read the mails a server sends and use their tokens.
package smtptest

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one accepted mail.
type Message struct {
	From    string
	To      []string
	Raw     string
	Header  mail.Header
	Subject string // decoded
	Body    string // decoded from quoted-printable
}

// Server is a running SMTP listener.
type Server struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs []Message
	wake chan struct{}
}

// Start listens on a random port of 127.0.0.1 until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartAt(t, "127.0.0.1:0")
}

// StartAt listens on addr until the test ends: a test can point a service
// at a port where nothing listens yet, then bring the server up there.
func StartAt(t testing.TB, addr string) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{ln: ln, wake: make(chan struct{})}
	go s.serve()
	t.Cleanup(func() { ln.Close() })
	return s
}

// Host is the listener's address without the port.
func (s *Server) Host() string { return s.ln.Addr().(*net.TCPAddr).IP.String() }

// Port is the listener's port.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func (s *Server) serve() {
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.handle(conn)
	}
}

func (s *Server) handle(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	r := bufio.NewReader(conn)
	reply := func(line string) { _, _ = io.WriteString(conn, line+"\r\n") }
	reply("220 smtptest ESMTP")
	var from string
	var to []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		switch verb {
		case "EHLO":
			reply("250-smtptest")
			reply("250 8BITMIME")
		case "HELO", "NOOP":
			reply("250 ok")
		case "RSET":
			from, to = "", nil
			reply("250 ok")
		case "MAIL":
			from = address(line)
			reply("250 ok")
		case "RCPT":
			to = append(to, address(line))
			reply("250 ok")
		case "DATA":
			reply("354 end with <CRLF>.<CRLF>")
			raw, err := readData(r)
			if err != nil {
				return
			}
			s.keep(from, to, raw)
			from, to = "", nil
			reply("250 queued")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 not implemented")
		}
	}
}

func address(line string) string {
	i, j := strings.IndexByte(line, '<'), strings.IndexByte(line, '>')
	if i < 0 || j < i {
		return ""
	}
	return line[i+1 : j]
}

func readData(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		if line == ".\r\n" || line == ".\n" {
			return b.String(), nil
		}
		b.WriteString(strings.TrimPrefix(line, ".")) // undo dot-stuffing
	}
}

func (s *Server) keep(from string, to []string, raw string) {
	m := Message{From: from, To: to, Raw: raw}
	if parsed, err := mail.ReadMessage(strings.NewReader(raw)); err == nil {
		m.Header = parsed.Header
		m.Subject, _ = new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
		body, _ := io.ReadAll(parsed.Body)
		if strings.EqualFold(parsed.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			body, _ = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		}
		m.Body = string(body)
	}
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// Messages returns every message accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Count returns how many messages to rcpt whose subject contains subject
// have arrived.
func (s *Server) Count(rcpt, subject string) int {
	n := 0
	for _, m := range s.Messages() {
		if matches(m, rcpt, subject) {
			n++
		}
	}
	return n
}

func matches(m Message, rcpt, subject string) bool {
	for _, to := range m.To {
		if strings.EqualFold(to, rcpt) && strings.Contains(m.Subject, subject) {
			return true
		}
	}
	return false
}

// Wait returns the n-th (1-based) message to rcpt whose subject contains
// subject, waiting up to 10 seconds for it.
func (s *Server) Wait(t testing.TB, rcpt, subject string, n int) Message {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		wake, seen := s.wake, 0
		for _, m := range s.msgs {
			if matches(m, rcpt, subject) {
				if seen++; seen == n {
					s.mu.Unlock()
					return m
				}
			}
		}
		s.mu.Unlock()
		select {
		case <-wake:
		case <-deadline:
			t.Fatalf("smtptest: no mail #%d to %s with subject %q within 10s", n, rcpt, subject)
		}
	}
}

var tokenRE = regexp.MustCompile(`token=([A-Za-z0-9_]+)`)

// Token extracts the token=... value a mail's link carries.
func (m Message) Token(t testing.TB) string {
	t.Helper()
	sub := tokenRE.FindStringSubmatch(m.Body)
	if sub == nil {
		t.Fatalf("smtptest: no token in mail %q:\n%s", m.Subject, m.Body)
	}
	return sub[1]
}
