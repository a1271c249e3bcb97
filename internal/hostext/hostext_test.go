package hostext

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
)

type host map[component.ID]component.Component

func (h host) GetExtensions() map[component.ID]component.Component { return h }

type named interface{ Name() string }

type ext struct {
	component.StartFunc
	component.ShutdownFunc
}

func (ext) Name() string { return "x" }

type plain struct {
	component.StartFunc
	component.ShutdownFunc
}

func TestLookup(t *testing.T) {
	id, other := component.MustNewID("costapi"), component.MustNewID("other")
	h := host{id: ext{}, other: plain{}}
	if got, err := Lookup[named](h, id, "a name"); err != nil || got.Name() != "x" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := Lookup[named](h, other, "a name"); err == nil || !strings.Contains(err.Error(), "does not provide a name") {
		t.Fatalf("wrong type: %v", err)
	}
	if _, err := Lookup[named](h, component.MustNewID("missing"), "a name"); err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Fatalf("absent: %v", err)
	}
}
