package pgserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// EnvBinDir names a directory holding initdb and postgres; it overrides the
// search of PATH and /usr/lib/postgresql/*/bin.
const EnvBinDir = "LLMCOST_PG_BIN"

// ErrNoBinaries is returned (wrapped) by Start when neither LLMCOST_PG_BIN,
// PATH nor the usual package directories hold initdb and postgres, so a
// caller can tell the user which package to install.
var ErrNoBinaries = errors.New("pgserver: PostgreSQL server binaries (initdb, postgres) not found")

type binaries struct {
	initdb, postgres string
}

// findBinaries looks in $LLMCOST_PG_BIN, then PATH, then the highest
// /usr/lib/postgresql/<major>/bin (Debian/Ubuntu) or /usr/pgsql-<major>/bin
// (RHEL). Symlinks are resolved so initdb finds its sibling postgres and
// share directory the way it would when called from its real location.
func findBinaries() (binaries, error) {
	if dir := os.Getenv(EnvBinDir); dir != "" {
		b, err := binariesIn(dir)
		if err != nil {
			return binaries{}, fmt.Errorf("pgserver: %s=%s: %w", EnvBinDir, dir, err)
		}
		return b, nil
	}
	if initdb, err := exec.LookPath("initdb"); err == nil {
		if postgres, err := exec.LookPath("postgres"); err == nil {
			return binaries{initdb: resolve(initdb), postgres: resolve(postgres)}, nil
		}
	}
	var dirs []string
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"} {
		m, _ := filepath.Glob(pattern)
		dirs = append(dirs, m...)
	}
	sort.SliceStable(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, dir := range dirs {
		if b, err := binariesIn(dir); err == nil {
			return b, nil
		}
	}
	return binaries{}, fmt.Errorf("%w: install the PostgreSQL server package (Debian: postgresql), "+
		"put its bin directory on PATH or set %s, or configure a database URL", ErrNoBinaries, EnvBinDir)
}

func binariesIn(dir string) (binaries, error) {
	b := binaries{initdb: filepath.Join(dir, "initdb"), postgres: filepath.Join(dir, "postgres")}
	for _, p := range []string{b.initdb, b.postgres} {
		fi, err := os.Stat(p)
		if err != nil {
			return binaries{}, err
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return binaries{}, fmt.Errorf("%s is not executable", p)
		}
	}
	return binaries{initdb: resolve(b.initdb), postgres: resolve(b.postgres)}, nil
}

func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		if abs, err := filepath.Abs(r); err == nil {
			return abs
		}
	}
	return p
}

// majorOf extracts the version from .../postgresql/<v>/bin or .../pgsql-<v>/bin.
func majorOf(binDir string) float64 {
	v := filepath.Base(filepath.Dir(binDir))
	v = strings.TrimPrefix(v, "pgsql-")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return -1
	}
	return f
}
