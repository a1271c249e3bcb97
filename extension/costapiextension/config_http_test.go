package costapiextension

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestSlowClientSettingsAreRequired(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	if cfg.HTTP.ReadHeaderTimeout != 10*time.Second || cfg.HTTP.ReadTimeout != 30*time.Second || cfg.MaxConnections != 1024 {
		t.Fatalf("defaults: %s %s %d", cfg.HTTP.ReadHeaderTimeout, cfg.HTTP.ReadTimeout, cfg.MaxConnections)
	}
	cfg.HTTP.ReadHeaderTimeout, cfg.HTTP.ReadTimeout, cfg.MaxConnections = 0, 0, 0
	err := cfg.Validate()
	for _, want := range []string{"http.read_header_timeout", "http.read_timeout", "max_connections"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error naming %s, got %v", want, err)
		}
	}
}

// With max_connections 2, a third connection is not accepted until one of
// the first two closes.
func TestConnectionCap(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.MaxConnections = 2
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := cfg.limitConnections(raw)
	defer ln.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, second := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted above the cap")
	case <-time.After(200 * time.Millisecond):
	}
	first.Close()
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(2 * time.Second):
		t.Fatal("the third connection was not accepted after one closed")
	}
	second.Close()
}
