// Package bench holds the analytics benchmark (make bench-analytics): a
// seeded 10 M-event project on a private on-disk PostgreSQL, kept between
// runs, the reports timed over HTTP against the real server, and ingest
// with rollups measured beside raw COPY; and the sustained benchmark (make
// bench-sustained: sustained_test.go), which streams calls
// through HTTP with the mergers running. Nothing here runs in make test but
// the unit tests of pure helpers (no database, well under a second).
package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgserver"
)

// Knobs, all optional.
const (
	// envDir moves the kept database (default <repo>/.llmcost-bench).
	envDir = "LLMCOST_BENCH_DIR"
	// envEvents shrinks or grows the dataset (default 10,000,000).
	envEvents = "LLMCOST_BENCH_EVENTS"
	// envReseed=1 seeds again even when the kept dataset matches.
	envReseed = "LLMCOST_BENCH_RESEED"
	// envMaxAge bounds the age of a reusable dataset (default 24h): its
	// timestamps are relative to the seeding time, so an older one leaves
	// the 24h window thin.
	envMaxAge = "LLMCOST_BENCH_MAX_AGE"
	// envUpgrade=1 keeps a dataset whose migrations are behind the
	// repository's, provided the ones it applied are unchanged, and brings
	// it up to date by running the new migrations on it (their backfills
	// included), as an upgrade of a live database would, instead of seeding
	// again for half an hour.
	envUpgrade = "LLMCOST_BENCH_UPGRADE"
	// envReportsOnly=1 skips the ingest comparison and the naive GROUP BY
	// (about three minutes), for iterating on the reports.
	envReportsOnly = "LLMCOST_BENCH_REPORTS_ONLY"
	// envIngestOnly=1 runs the ingest comparison and the naive GROUP BY
	// alone, for iterating on ingest (a small LLMCOST_BENCH_EVENTS is
	// enough: the comparison writes the same 100,000 calls into a database
	// of its own whatever the dataset's size).
	envIngestOnly = "LLMCOST_BENCH_INGEST_ONLY"
	// envPGSettings adds server settings to the bench PostgreSQL's, as
	// name=value separated by commas, to look inside a run: for example
	// shared_preload_libraries=auto_explain,auto_explain.log_min_duration=20,
	// auto_explain.log_analyze=on,auto_explain.log_buffers=on,
	// auto_explain.log_timing=off logs the plan and the pages read of every
	// statement over 20 ms to postgres.log in the dataset's directory. A
	// value cannot hold a comma (LLMCOST_BENCH_SCALE_PAGES adds its own
	// library to shared_preload_libraries). The timings of such a run are
	// not comparable with others.
	envPGSettings = "LLMCOST_BENCH_PG_SETTINGS"
)

// whySchema is readState's reason when only the migrations differ.
const whySchema = "the migrations changed since it was seeded"

// serverSettings suit a bulk load and a read-mostly benchmark on a machine
// with some gigabytes of memory; durability settings stay at their defaults
// (fsync on), as in production.
var serverSettings = map[string]string{
	"shared_buffers":       "1GB",
	"maintenance_work_mem": "1GB",
	"max_wal_size":         "8GB",
	"checkpoint_timeout":   "30min",
	"max_connections":      "100",
}

// benchServerSettings is serverSettings with envPGSettings' added.
func benchServerSettings(b *testing.B) map[string]string {
	out := maps.Clone(serverSettings)
	for _, kv := range strings.Split(os.Getenv(envPGSettings), ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			b.Fatalf("%s: %q is not name=value", envPGSettings, kv)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

// datasetState is dataset.json beside the cluster: what was seeded, when,
// and how long it took. A dataset is reused only when its key (generator
// version, seed, sizes) and schema fingerprint match.
type datasetState struct {
	Key       string             `json:"key"`
	Schema    string             `json:"schema"`
	Anchor    time.Time          `json:"anchor"`
	ProjectID string             `json:"project_id"`
	Took      map[string]float64 `json:"took_seconds"`
}

// envInt reads a positive integer from the environment variable name, def
// when it is unset.
func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func specFromEnv(b *testing.B) benchdata.Spec {
	spec := benchdata.Default
	spec.Events = envInt(b, envEvents, spec.Events)
	if err := spec.Validate(); err != nil {
		b.Fatal(err)
	}
	return spec
}

func benchDir() string {
	if d := os.Getenv(envDir); d != "" {
		return d
	}
	return filepath.Join(repoRoot(), ".llmcost-bench")
}

func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}

// schemaFingerprint hashes the migrations' names and contents, so a new or
// edited migration invalidates a kept dataset.
func schemaFingerprint() (string, error) {
	return fingerprintOf(func(string) bool { return true })
}

// fingerprintOf hashes the migration files whose names keep accepts, in
// name order, as schemaFingerprint does for all of them.
func fingerprintOf(keep func(name string) bool) (string, error) {
	files, err := filepath.Glob(filepath.Join(repoRoot(), "internal", "postgres", "migrations", "*.sql"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no migrations found: %v", err)
	}
	h := sha256.New()
	for _, f := range files {
		if !keep(filepath.Base(f)) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// dataset is the seeded project on its running server.
type dataset struct {
	spec   benchdata.Spec
	server *pgserver.Server
	db     *postgres.DB // bulk pool: no statement timeout
	state  datasetState
	reused bool
}

// analyticsDataset is the directory under the bench dir of the dataset
// make bench-analytics and bench-pages keep (make bench-scale's base, at
// their size).
const analyticsDataset = "analytics"

// openDataset starts the cluster kept in the bench dir's directory name
// and reuses its dataset when it matches, or wipes it and seeds a new one.
func openDataset(b *testing.B, name string, spec benchdata.Spec) *dataset {
	ctx := context.Background()
	dir := filepath.Join(benchDir(), name)
	schema, err := schemaFingerprint()
	if err != nil {
		b.Fatal(err)
	}
	maxAge := 24 * time.Hour
	if v := os.Getenv(envMaxAge); v != "" {
		if maxAge, err = time.ParseDuration(v); err != nil {
			b.Fatalf("%s=%q: %v", envMaxAge, v, err)
		}
	}
	st, why := readState(dir, spec.Key(), schema, maxAge)
	upgrade := why == whySchema && os.Getenv(envUpgrade) == "1"
	if upgrade {
		why = ""
	}
	if why != "" {
		fmt.Printf("seeding a new dataset (%s)\n", why)
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
	}
	ds := &dataset{spec: spec, state: st, reused: why == ""}
	if ds.server, err = pgserver.Start(ctx, pgserver.Options{DataDir: dir, Settings: benchServerSettings(b),
		StartTimeout: 10 * time.Minute}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := ds.server.Stop(context.Background()); err != nil {
			b.Errorf("stopping the bench PostgreSQL: %v", err)
		}
	})
	if ds.db, err = postgres.OpenBulk(ctx, ds.server.URL(), 4); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ds.db.Close)
	if upgrade {
		upgradeDataset(b, ds, dir, schema)
	}
	if ds.reused {
		n, err := ds.db.CountEvents(ctx, st.ProjectID)
		if err != nil || n != int64(spec.Events) {
			b.Fatalf("kept dataset in %s holds %d events, want %d (%v); delete the directory or set %s=1",
				dir, n, spec.Events, err, envReseed)
		}
		fmt.Printf("reusing the dataset seeded at %s (%s ago; seeding took %.0fs)\n",
			st.Anchor.Format(time.RFC3339), time.Since(st.Anchor).Round(time.Minute), st.Took["total"])
		return ds
	}
	ds.state = seed(b, ds.db, spec, schema)
	if err := writeState(dir, ds.state); err != nil {
		b.Fatal(err)
	}
	return ds
}

// readState returns the kept dataset's state, or why it cannot be reused.
func readState(dir, key, schema string, maxAge time.Duration) (datasetState, string) {
	var st datasetState
	data, err := os.ReadFile(filepath.Join(dir, "dataset.json"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return st, "none kept in " + dir
	case err != nil:
		return st, err.Error()
	case json.Unmarshal(data, &st) != nil:
		return st, "dataset.json unreadable"
	case os.Getenv(envReseed) == "1":
		return st, envReseed + "=1"
	case st.Key != key:
		return st, "kept dataset is " + st.Key + ", want " + key
	case time.Since(st.Anchor) > maxAge:
		return st, fmt.Sprintf("kept dataset is %s old, more than %s (%s)", time.Since(st.Anchor).Round(time.Minute), maxAge, envMaxAge)
	case st.Schema != schema:
		return st, whySchema
	}
	return st, ""
}

func writeState(dir string, st datasetState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "dataset.json"), data, 0o644)
}

// upgradeDataset runs the migrations a kept dataset lacks, after checking
// that the ones it applied are byte for byte the repository's (an edited
// old migration would leave it unlike a fresh database), then refreshes the
// planner's statistics and records the new fingerprint.
func upgradeDataset(b *testing.B, ds *dataset, dir, schema string) {
	ctx := context.Background()
	applied := map[string]bool{}
	rows, err := ds.db.Pool.Query(ctx, `SELECT name FROM schema_migrations`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			b.Fatal(err)
		}
		applied[name] = true
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	old, err := fingerprintOf(func(name string) bool { return applied[name] })
	if err != nil {
		b.Fatal(err)
	}
	if old != ds.state.Schema {
		b.Fatalf("%s=1: a migration the kept dataset applied was edited since; seed again (%s=1)", envUpgrade, envReseed)
	}
	t := time.Now()
	n, err := ds.db.Migrate(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := ds.db.VacuumAnalyze(ctx); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("upgraded the kept dataset: %d new migrations and VACUUM (ANALYZE) in %s\n", n, time.Since(t).Round(time.Second))
	ds.state.Schema = schema
	if err := writeState(dir, ds.state); err != nil {
		b.Fatal(err)
	}
}
