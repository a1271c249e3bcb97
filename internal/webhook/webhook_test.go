package webhook

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestStandardWebhooksVector(t *testing.T) {
	// The test vector of the Standard Webhooks reference libraries.
	got := StandardSignature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		1614265330, []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestSignAndVerify(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	now := time.Unix(1_700_000_000, 0)
	h := SignedHeaders("s3cret-s3cret-s3cret", "evt_1", now, body)
	if h[HeaderTimestamp] != "1700000000" || h[HeaderSWTime] != "1700000000" || h[HeaderSWID] != "evt_1" {
		t.Fatalf("headers: %v", h)
	}
	if len(h[HeaderSignature]) != 64 {
		t.Fatalf("signature is not hex SHA-256: %q", h[HeaderSignature])
	}
	if !Verify("s3cret-s3cret-s3cret", h, body, now.Add(time.Minute), 5*time.Minute) {
		t.Fatal("a fresh delivery must verify")
	}
	if Verify("other-secret-other", h, body, now, 5*time.Minute) {
		t.Fatal("another secret must not verify")
	}
	if Verify("s3cret-s3cret-s3cret", h, []byte(`{"id":"evt_2"}`), now, 5*time.Minute) {
		t.Fatal("another body must not verify")
	}
	if Verify("s3cret-s3cret-s3cret", h, body, now.Add(time.Hour), 5*time.Minute) {
		t.Fatal("a stale timestamp must not verify")
	}
}

// tlsReceiver is an HTTPS server on loopback and a CA file trusting it.
func tlsReceiver(t *testing.T, h http.HandlerFunc) (*httptest.Server, string) {
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	der := srv.Certificate().Raw
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, ca
}

func TestSendDeliversSigned(t *testing.T) {
	var got atomic.Bool
	srv, ca := tlsReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := map[string]string{HeaderTimestamp: r.Header.Get(HeaderTimestamp), HeaderSignature: r.Header.Get(HeaderSignature)}
		got.Store(Verify("receiver-secret-1234", h, body, time.Now(), 5*time.Minute))
		w.WriteHeader(http.StatusNoContent)
	})
	c, err := NewClient(Options{AllowPrivate: true, CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	res := c.Send(context.Background(), srv.URL+"/hook", "receiver-secret-1234", "evt_x", []byte(`{}`), time.Now())
	if !res.Delivered || res.StatusCode != 204 || res.Err != nil {
		t.Fatalf("result: %+v", res)
	}
	if !got.Load() {
		t.Fatal("the receiver could not verify the signature")
	}
}

func TestSendRefusesNonPublicAndRedirects(t *testing.T) {
	var hits atomic.Int32
	target, ca := tlsReceiver(t, func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) })
	redirector := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	strict, err := NewClient(Options{})
	if err != nil {
		t.Fatal(err)
	}
	port := target.URL[strings.LastIndex(target.URL, ":"):]
	for _, u := range []string{"http://example.com/hook", "https://127.0.0.1" + port, "https://localhost" + port,
		"https://169.254.169.254/latest/meta-data", "https://[::1]" + port, redirector.URL} {
		res := strict.Send(context.Background(), u, "secret-secret-secret", "evt", []byte(`{}`), time.Now())
		if res.Delivered || res.Err == nil {
			t.Errorf("%s: want refused, got %+v", u, res)
		}
	}
	// Even where private addresses are allowed, a redirect is not followed.
	lax, err := NewClient(Options{AllowPrivate: true, CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	redirectCA(t, lax, redirector)
	res := lax.Send(context.Background(), redirector.URL, "secret-secret-secret", "evt", []byte(`{}`), time.Now())
	if res.Delivered || res.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("redirect: want an undelivered 307, got %+v", res)
	}
	if hits.Load() != 0 {
		t.Errorf("the redirect target was reached %d times", hits.Load())
	}
}

// redirectCA makes c trust redirector's certificate too.
func redirectCA(t *testing.T, c *Client, redirector *httptest.Server) {
	tr := c.http.Transport.(*http.Transport)
	tr.TLSClientConfig.RootCAs.AddCert(redirector.Certificate())
}

func TestCheckURL(t *testing.T) {
	for u, want := range map[string]bool{
		"https://hooks.example.com/x": true, "http://hooks.example.com/x": false, "https://127.0.0.1/x": false,
		"https://169.254.169.254/": false, "https://localhost:8443/": false, "https://10.1.2.3/": false,
		"https://[::1]/": false, "hooks.example.com": false, "https://u:p@hooks.example.com/": false,
	} {
		if ok := CheckURL(u, false) == ""; ok != want {
			t.Errorf("%s: ok=%v, want %v (%s)", u, ok, want, CheckURL(u, false))
		}
	}
	if msg := CheckURL("https://127.0.0.1:9/", true); msg != "" {
		t.Errorf("private allowed: %s", msg)
	}
}

// The known answer of the security checklist (§3, test 1), checked there
// with openssl: X-Service-Signature for this secret, timestamp and body.
func TestSignKnownAnswer(t *testing.T) {
	got := Sign("test_secret_0123456789abcdef", 1700000000, []byte(`{"event":"budget.exceeded","project_id":"p_123"}`))
	if want := "851b254ad7cb0071810459633171a03e51605a88f14a2a4de5a94f6eb208b794"; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}
