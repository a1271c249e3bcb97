package postgres

import (
	"context"
	"encoding/binary"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The ingest statement sends each column of a 1,000-call batch as one
// array parameter, some 39,000 elements a batch. pgx encodes an array
// element by element through its generic plan (each element boxed in an
// interface, checked for a nil driver.Valuer, its type looked up), which
// took about 6 % of the machine during ingest (perf, 23 November). The two
// element types most of those columns use, text and bigint, are encoded
// here directly from []string and []int64, byte for byte what pgx's own
// plan writes (TestFastArraysEncodeAsPgx); every other value goes to pgx's
// codec as before.

// fastArrays is pgx's codec of text[] or bigint[] with a direct binary
// encoding of []string or []int64.
type fastArrays struct {
	pgtype.Codec
	elem uint32
}

// PlanEncode answers the direct plan for the slices it knows in binary,
// pgx's plan otherwise.
func (c fastArrays) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case []string:
			if c.elem == pgtype.TextOID {
				return textArrayPlan
			}
		case []int64:
			if c.elem == pgtype.Int8OID {
				return int8ArrayPlan
			}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// useFastArrays replaces the text[] and bigint[] codecs of a connection's
// type map; pool configurations call it after connecting.
func useFastArrays(_ context.Context, conn *pgx.Conn) error {
	fastArraysOn(conn.TypeMap())
	return nil
}

// fastArraysOn replaces m's text[] and bigint[] codecs by fastArrays.
func fastArraysOn(m *pgtype.Map) {
	for _, t := range []struct{ array, elem uint32 }{{pgtype.TextArrayOID, pgtype.TextOID}, {pgtype.Int8ArrayOID, pgtype.Int8OID}} {
		typ, ok := m.TypeForOID(t.array)
		if !ok {
			continue
		}
		m.RegisterType(&pgtype.Type{Name: typ.Name, OID: typ.OID, Codec: fastArrays{Codec: typ.Codec, elem: t.elem}})
	}
}

// arrayHeader appends the binary array header of n elements of type elem,
// as pgx writes it: one dimension (of length 0 for an empty array) with
// lower bound 1, no NULL.
func arrayHeader(buf []byte, n int, elem uint32) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	buf = binary.BigEndian.AppendUint32(buf, elem)
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	return binary.BigEndian.AppendUint32(buf, 1)
}

// directArrayPlan encodes a []T as a one-dimensional array of elem
// without NULLs, each element appended by put; a nil slice is NULL, as in
// pgx.
type directArrayPlan[T any] struct {
	elem uint32
	put  func(buf []byte, v T) []byte
}

// Encode writes value, a []T.
func (p directArrayPlan[T]) Encode(value any, buf []byte) ([]byte, error) {
	v := value.([]T)
	if v == nil {
		return nil, nil
	}
	buf = arrayHeader(buf, len(v), p.elem)
	for _, x := range v {
		buf = p.put(buf, x)
	}
	return buf, nil
}

var (
	textArrayPlan = directArrayPlan[string]{elem: pgtype.TextOID, put: func(buf []byte, s string) []byte {
		return append(binary.BigEndian.AppendUint32(buf, uint32(len(s))), s...)
	}}
	int8ArrayPlan = directArrayPlan[int64]{elem: pgtype.Int8OID, put: func(buf []byte, n int64) []byte {
		return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(buf, 8), uint64(n))
	}}
)
