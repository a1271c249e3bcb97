package postgres

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
)

// TestFastArraysEncodeAsPgx: the direct plans write exactly the bytes
// pgx's own plan writes (NULL for a nil slice included), and a type map
// with fastArrays uses them for []string and []int64 in binary only.
func TestFastArraysEncodeAsPgx(t *testing.T) {
	plain, fast := pgtype.NewMap(), pgtype.NewMap()
	fastArraysOn(fast)
	cases := []struct {
		oid   uint32
		value any
	}{
		{pgtype.TextArrayOID, []string(nil)}, {pgtype.TextArrayOID, []string{}}, {pgtype.TextArrayOID, []string{""}},
		{pgtype.TextArrayOID, []string{"a", "é ✓ \x01", strings.Repeat("x", 70_000), ""}},
		{pgtype.Int8ArrayOID, []int64(nil)}, {pgtype.Int8ArrayOID, []int64{}},
		{pgtype.Int8ArrayOID, []int64{0, -1, 1, 255, 256, math.MaxInt64, math.MinInt64}},
		{pgtype.UUIDArrayOID, []string(nil)}, {pgtype.UUIDArrayOID, []string{}},
		{pgtype.UUIDArrayOID, []string{"00000000-0000-0000-0000-000000000000", "0189ABCD-ef01-4a23-9b45-6789abcdef0f",
			"ffffffff-ffff-ffff-ffff-ffffffffffff"}},
	}
	for _, c := range cases {
		want, err := plain.Encode(c.oid, pgtype.BinaryFormatCode, uuidsOf(t, c.oid, c.value), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fast.Encode(c.oid, pgtype.BinaryFormatCode, c.value, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (got == nil) != (want == nil) || !bytes.Equal(got, want) {
			t.Errorf("%T %v: %x, pgx %x", c.value, c.value, got, want)
		}
	}
	for _, c := range []struct {
		oid    uint32
		format int16
		value  any
		direct bool
	}{
		{pgtype.TextArrayOID, pgtype.BinaryFormatCode, []string{"a"}, true},
		{pgtype.Int8ArrayOID, pgtype.BinaryFormatCode, []int64{1}, true},
		{pgtype.TextArrayOID, pgtype.TextFormatCode, []string{"a"}, false},
		{pgtype.TextArrayOID, pgtype.BinaryFormatCode, []*string{nil}, false},
		{pgtype.Int8ArrayOID, pgtype.BinaryFormatCode, []int32{1}, false},
		{pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, []string{"00000000-0000-0000-0000-000000000000"}, true},
		{pgtype.UUIDArrayOID, pgtype.TextFormatCode, []string{"00000000-0000-0000-0000-000000000000"}, false},
	} {
		plan := fast.PlanEncode(c.oid, c.format, c.value)
		_, text := plan.(directArrayPlan[string])
		_, int8s := plan.(directArrayPlan[int64])
		if plan == nil || (text || int8s) != c.direct {
			t.Errorf("%d %d %T: plan %T, direct %v", c.oid, c.format, c.value, plan, c.direct)
		}
	}
}

// uuidsOf is value, for a uuid[] its []string parsed as uuids, which
// pgx's own plan can encode in binary (it has none for []string).
func uuidsOf(t *testing.T, oid uint32, value any) any {
	s, ok := value.([]string)
	if !ok || s == nil || oid != pgtype.UUIDArrayOID {
		return value
	}
	out := make([]pgtype.UUID, len(s))
	for i, v := range s {
		if err := out[i].Scan(v); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestFastUUIDArraysRefuseOtherForms: a uuid in another form than the
// canonical one fails the binary plan (pgx then sends the array as text,
// for the server to parse or refuse), as pgx's own binary attempt did.
func TestFastUUIDArraysRefuseOtherForms(t *testing.T) {
	fast := pgtype.NewMap()
	fastArraysOn(fast)
	for _, bad := range []string{"", "0000000000000000000000000000000", "00000000000000000000000000000000",
		"{00000000-0000-0000-0000-000000000000}", "00000000-0000-0000-0000-00000000000g", "00000000+0000-0000-0000-000000000000",
		"0000000-00000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000 "} {
		if b, err := fast.Encode(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, []string{"00000000-0000-0000-0000-000000000001", bad}, nil); err == nil {
			t.Errorf("%q encoded in binary: %x", bad, b)
		}
		if _, err := fast.Encode(pgtype.UUIDArrayOID, pgtype.TextFormatCode, []string{bad}, nil); err != nil {
			t.Errorf("%q as text: %v", bad, err)
		}
	}
}

// BenchmarkUUIDArrayEncode encodes the project ids of a 1,000-call batch
// as pgx sends a uuid[] parameter from a []string: before fastArrays, a
// failed binary attempt (its error quoting every element) and then text;
// with it, binary at once.
//
//	go test -run '^$' -bench BenchmarkUUIDArrayEncode ./internal/postgres/
func BenchmarkUUIDArrayEncode(b *testing.B) {
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = "0189abcd-ef01-4a23-9b45-6789abcdef0f"
	}
	plain, fast := pgtype.NewMap(), pgtype.NewMap()
	fastArraysOn(fast)
	b.Run("pgx", func(b *testing.B) {
		for range b.N {
			if _, err := plain.Encode(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, ids, nil); err == nil {
				b.Fatal("pgx encoded a []string as a binary uuid[]")
			}
			if _, err := plain.Encode(pgtype.UUIDArrayOID, pgtype.TextFormatCode, ids, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		for range b.N {
			if _, err := fast.Encode(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, ids, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestTextArrayLiteralRoundTrips: PostgreSQL reads every literal back as
// the elements it was written from, whatever they hold, as run_steps'
// insert casts them (m::text[] over unnest).
func TestTextArrayLiteralRoundTrips(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	cases := [][]string{{}, {""}, {"gpt-4o"}, {"claude-sonnet-4-5", "gpt-4o-mini"},
		{`a"b`, `back\slash`, `\"`, "with,comma", "{braces}", "NULL", "null", " spaced ", "ünïcödé", "tab\there", "line\nbreak"}}
	lits := make([]string, len(cases))
	for i, c := range cases {
		lits[i] = textArrayLiteral(c)
	}
	rows, err := conn.Query(ctx, `SELECT m::text[] FROM unnest($1::text[]) WITH ORDINALITY AS u(m, i) ORDER BY i`, lits)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[[]string])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cases) {
		t.Fatalf("%d arrays back, want %d", len(got), len(cases))
	}
	for i, c := range cases {
		if !slices.Equal(got[i], c) || got[i] == nil {
			t.Errorf("%s read back as %q, want %q", lits[i], got[i], c)
		}
	}
}
