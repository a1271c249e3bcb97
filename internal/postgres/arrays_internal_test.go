package postgres

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
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
	}
	for _, c := range cases {
		want, err := plain.Encode(c.oid, pgtype.BinaryFormatCode, c.value, nil)
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
	} {
		plan := fast.PlanEncode(c.oid, c.format, c.value)
		_, text := plan.(directArrayPlan[string])
		_, int8s := plan.(directArrayPlan[int64])
		if plan == nil || (text || int8s) != c.direct {
			t.Errorf("%d %d %T: plan %T, direct %v", c.oid, c.format, c.value, plan, c.direct)
		}
	}
}
