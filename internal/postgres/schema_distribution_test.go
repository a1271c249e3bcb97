package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// How each table would be placed on a PostgreSQL distributed by project
// (Citus): docs/scale.md, "A distributed PostgreSQL path". A table missing
// here fails TestSchemaIsReadyToDistributeByProject, so a new table is
// placed on purpose.
var (
	// referenceTables are small, read by every project's statements, and
	// copied to every node: accounts, the catalogue, and what a user sees
	// across projects (memberships, notifications).
	referenceTables = []string{"users", "sessions", "account_tokens", "identities", "consents", "used_refresh_tokens", "projects",
		"memberships", "notifications", "catalogue_versions", "catalogue_current"}
	// localTables coordinate the instances and stay on the coordinator:
	// migrations, the rollup merger's state, rate-limit windows keyed by
	// credential, one-off backfills, and the job runner's tables.
	localTables = []string{"schema_migrations", "rollup_state", "rate_limit_windows", "rate_limit_logs",
		"pending_backfills", "raw_expiry"}
	// localPrefixes name families of local tables (River's).
	localPrefixes = []string{"river_"}
)

// TestSchemaIsReadyToDistributeByProject checks the migrated schema
// against the rules a distribution by project_id needs: every table is
// distributed (it has a non-null project_id), reference or local; every
// primary key and unique index of a distributed table includes project_id;
// a foreign key between distributed tables includes project_id on both
// sides; a reference table refers to no distributed table; no distributed
// table refers to a local one.
func TestSchemaIsReadyToDistributeByProject(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	kind := map[string]string{}
	rows, err := db.Pool.Query(ctx, `SELECT c.relname,
  coalesce((SELECT a.attnotnull FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'project_id' AND NOT a.attisdropped), false)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var projectKeyed bool
		if err := rows.Scan(&name, &projectKeyed); err != nil {
			t.Fatal(err)
		}
		switch {
		case slices.Contains(referenceTables, name):
			kind[name] = "reference"
		case slices.Contains(localTables, name) || slices.ContainsFunc(localPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }):
			kind[name] = "local"
		case projectKeyed:
			kind[name] = "distributed"
		default:
			t.Errorf("table %s: no non-null project_id, and not named a reference or local table", name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if kind["events"] != "distributed" || kind["projects"] != "reference" || kind["rollup_state"] != "local" {
		t.Fatalf("placement read wrong: events %q, projects %q, rollup_state %q", kind["events"], kind["projects"], kind["rollup_state"])
	}

	// Unique indexes (primary keys included) of distributed tables.
	rows, err = db.Pool.Query(ctx, `SELECT c.relname, i.indexrelid::regclass::text,
  EXISTS (SELECT 1 FROM unnest(i.indkey) k JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k WHERE a.attname = 'project_id')
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND i.indisunique AND NOT c.relispartition AND c.relkind IN ('r', 'p')`)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for rows.Next() {
		var table, index string
		var hasProject bool
		if err := rows.Scan(&table, &index, &hasProject); err != nil {
			t.Fatal(err)
		}
		if kind[table] == "distributed" {
			checked++
			if !hasProject {
				t.Errorf("unique index %s of distributed table %s does not include project_id", index, table)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("only %d unique indexes of distributed tables checked: the query reads the wrong catalogue rows", checked)
	}

	// Foreign keys.
	rows, err = db.Pool.Query(ctx, `SELECT f.conrelid::regclass::text, f.confrelid::regclass::text, f.conname,
  EXISTS (SELECT 1 FROM unnest(f.conkey) k JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k WHERE a.attname = 'project_id'),
  EXISTS (SELECT 1 FROM unnest(f.confkey) k JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k WHERE a.attname = 'project_id')
FROM pg_constraint f JOIN pg_class c ON c.oid = f.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE f.contype = 'f' AND n.nspname = 'public' AND NOT c.relispartition AND f.conparentid = 0`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var from, to, name string
		var fromProject, toProject bool
		if err := rows.Scan(&from, &to, &name, &fromProject, &toProject); err != nil {
			t.Fatal(err)
		}
		switch kf, kt := kind[from], kind[to]; {
		case kf == "distributed" && kt == "distributed" && !(fromProject && toProject):
			t.Errorf("foreign key %s (%s → %s) between distributed tables does not include project_id on both sides", name, from, to)
		case kf == "reference" && kt == "distributed":
			t.Errorf("foreign key %s: reference table %s refers to distributed table %s", name, from, to)
		case kf == "distributed" && kt == "local":
			t.Errorf("foreign key %s: distributed table %s refers to local table %s", name, from, to)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
