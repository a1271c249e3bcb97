package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The ingest statement sends each column of a 1,000-call batch as one
// array parameter, some 39,000 elements a batch. pgx encodes an array
// element by element through its generic plan (each element boxed in an
// interface, checked for a nil driver.Valuer, its type looked up), which
// showed in ingest's CPU profile (docs/performance.md). The two
// element types most of those columns use, text and bigint, are encoded
// here directly from []string and []int64, byte for byte what pgx's own
// plan writes (TestFastArraysEncodeAsPgx); every other value goes to pgx's
// codec as before.
//
// uuid[] from []string (project ids, in the ingest statement and every
// statement of the run merger) had no binary plan in pgx at all: each
// such parameter first failed in binary, with an error message that
// quoted all its elements (%#v), and was then sent as text for the server
// to parse.
// It is now encoded in binary from the canonical form; any other form
// fails the binary plan cheaply and still goes as text, as before.

// fastArrays is pgx's codec of text[], bigint[] or uuid[] with a direct
// binary encoding of []string, []int64 or (uuid[]) []string.
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
			switch c.elem {
			case pgtype.TextOID:
				return textArrayPlan
			case pgtype.UUIDOID:
				return uuidArrayPlan
			}
		case []int64:
			if c.elem == pgtype.Int8OID {
				return int8ArrayPlan
			}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// useFastArrays replaces the text[], bigint[] and uuid[] codecs of a connection's
// type map; pool configurations call it after connecting.
func useFastArrays(_ context.Context, conn *pgx.Conn) error {
	fastArraysOn(conn.TypeMap())
	return nil
}

// fastArraysOn replaces m's text[], bigint[] and uuid[] codecs by
// fastArrays.
func fastArraysOn(m *pgtype.Map) {
	for _, t := range []struct{ array, elem uint32 }{{pgtype.TextArrayOID, pgtype.TextOID},
		{pgtype.Int8ArrayOID, pgtype.Int8OID}, {pgtype.UUIDArrayOID, pgtype.UUIDOID}} {
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
// without NULLs, each element appended by put (which may refuse one); a
// nil slice is NULL, as in pgx.
type directArrayPlan[T any] struct {
	elem uint32
	put  func(buf []byte, v T) ([]byte, error)
}

// Encode writes value, a []T.
func (p directArrayPlan[T]) Encode(value any, buf []byte) ([]byte, error) {
	v := value.([]T)
	if v == nil {
		return nil, nil
	}
	buf = arrayHeader(buf, len(v), p.elem)
	for _, x := range v {
		var err error
		if buf, err = p.put(buf, x); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// errNotCanonicalUUID refuses a uuid element in another form than
// 8-4-4-4-12 hexadecimal digits; pgx then sends the array as text.
var errNotCanonicalUUID = errors.New("not a canonical uuid")

// appendUUID appends the 16 bytes of s, a uuid in canonical form. The
// length is checked first: uuid.Parse also reads braced, urn: and
// hyphenless forms, which stay with the text path as before.
func appendUUID(buf []byte, s string) ([]byte, error) {
	if len(s) != 36 {
		return nil, errNotCanonicalUUID
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return nil, errNotCanonicalUUID
	}
	return append(binary.BigEndian.AppendUint32(buf, 16), u[:]...), nil
}

var (
	textArrayPlan = directArrayPlan[string]{elem: pgtype.TextOID, put: func(buf []byte, s string) ([]byte, error) {
		return append(binary.BigEndian.AppendUint32(buf, uint32(len(s))), s...), nil
	}}
	int8ArrayPlan = directArrayPlan[int64]{elem: pgtype.Int8OID, put: func(buf []byte, n int64) ([]byte, error) {
		return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(buf, 8), uint64(n)), nil
	}}
	uuidArrayPlan = directArrayPlan[string]{elem: pgtype.UUIDOID, put: appendUUID}
)

// textArrayLiteral writes elems as a text[] literal with every element
// quoted ({"a","b \"c\""}; {} when empty), for a column of arrays of
// different lengths passed through unnest as text[] and cast back to
// text[] per row: unnest cannot take an array of arrays of different
// lengths. The cast is PostgreSQL's array parser; it replaced one JSON
// text per row expanded by jsonb_array_elements_text in a subquery, a
// seventh of the run steps' insert. Quoted, an element is never NULL and
// may hold any character PostgreSQL's text holds.
func textArrayLiteral(elems []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for j := 0; j < len(e); j++ {
			if e[j] == '"' || e[j] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(e[j])
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}
