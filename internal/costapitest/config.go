package costapitest

import (
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/confmap/confmaptest"
)

// LoadConfig decodes section id of the package's testdata/config.yaml over
// cfg (a component's default configuration), as the collector does; a
// missing file or section fails the test, a decoding error is returned.
func LoadConfig(t testing.TB, id string, cfg any) error {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := cm.Sub(id)
	if err != nil {
		t.Fatal(err)
	}
	return sub.Unmarshal(cfg)
}
