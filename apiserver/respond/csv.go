package respond

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// CSVContentType is the media type of every CSV answer (RFC 4180, with
// the header row RFC 7111 lets a server announce).
const CSVContentType = "text/csv; charset=utf-8; header=present"

// CSV writes rows (a slice of structs, or of pointers to structs) as a CSV
// answer with status 200: a header row, then one line per element. The
// columns are the elements' JSON fields in order, so a CSV export and the
// JSON answer never disagree: a nested object becomes columns named by
// its dotted path (tokens.provider.input), an array or a map one column
// holding its JSON text, and a null an empty cell. Every value is the text
// JSON writes for it, so money stays the exact decimal of its nano-USD.
// filename names the download in Content-Disposition.
func CSV(w http.ResponseWriter, rows any, filename string) error {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice {
		v = reflect.Append(reflect.MakeSlice(reflect.SliceOf(v.Type()), 0, 1), v)
	}
	cols := Columns(v.Type().Elem())
	w.Header().Set("Content-Type", CSVContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.WriteHeader(http.StatusOK)
	cw := NewCSVWriter(w, cols)
	for i := 0; i < v.Len(); i++ {
		if err := cw.Write(v.Index(i)); err != nil {
			return nil // the client went away; nothing more can be answered
		}
	}
	cw.Flush()
	return nil
}

// Column is one CSV column of a record type: its dotted name and the
// path of struct field indexes that reaches its value.
type Column struct {
	Name string
	path [][]int // successive FieldByIndex steps, through pointers
}

// Columns lists the CSV columns of a record type t (a struct or a pointer
// to one), in the order encoding/json writes its fields.
func Columns(t reflect.Type) []Column {
	var out []Column
	flatten(t, "", nil, &out)
	return out
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

func flatten(t reflect.Type, prefix string, path [][]int, out *[]Column) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, skip := jsonName(f)
		if skip {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		step := append(append([][]int{}, path...), f.Index)
		if f.Anonymous && ft.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			flatten(ft, prefix, step, out) // embedded: its fields are promoted, as in JSON
			continue
		}
		if ft.Kind() == reflect.Struct && !reflect.PointerTo(ft).Implements(marshalerType) && !ft.Implements(marshalerType) {
			flatten(ft, prefix+name+".", step, out)
			continue
		}
		*out = append(*out, Column{Name: prefix + name, path: step})
	}
}

// jsonName is the field's JSON key, and whether JSON leaves it out.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() && !f.Anonymous {
		return "", true
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, false
}

// CSVWriter writes records of one type as CSV lines, the header first.
type CSVWriter struct {
	w    *csv.Writer
	cols []Column
	rec  []string
}

// NewCSVWriter writes the header row of cols to w and returns a writer of
// records. Callers streaming many records flush it between pages.
func NewCSVWriter(w io.Writer, cols []Column) *CSVWriter {
	cw := &CSVWriter{w: csv.NewWriter(w), cols: cols, rec: make([]string, len(cols))}
	cw.w.UseCRLF = true // RFC 4180's line end
	for i, c := range cols {
		cw.rec[i] = c.Name
	}
	_ = cw.w.Write(cw.rec)
	return cw
}

// Write writes one record (a struct value or a pointer to one).
func (cw *CSVWriter) Write(v reflect.Value) error {
	for i, c := range cw.cols {
		cw.rec[i] = cell(v, c.path)
	}
	return cw.w.Write(cw.rec)
}

// Flush writes what is buffered and reports a write error.
func (cw *CSVWriter) Flush() error {
	cw.w.Flush()
	return cw.w.Error()
}

func cell(v reflect.Value, path [][]int) string {
	for _, idx := range path {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return ""
			}
			v = v.Elem()
		}
		v = v.FieldByIndex(idx)
	}
	return text(v)
}

// text is v as JSON writes it, unquoted for strings; null is empty.
func text(v reflect.Value) string {
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface || v.Kind() == reflect.Map || v.Kind() == reflect.Slice {
		if v.IsNil() {
			return ""
		}
	}
	if !v.Type().Implements(marshalerType) {
		switch v.Kind() {
		case reflect.String:
			return defuse(v.String())
		case reflect.Bool:
			return strconv.FormatBool(v.Bool())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return strconv.FormatInt(v.Int(), 10)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return strconv.FormatUint(v.Uint(), 10)
		case reflect.Pointer:
			return text(v.Elem())
		}
	}
	b, err := json.Marshal(v.Interface())
	if err != nil || string(b) == "null" {
		return ""
	}
	if b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
	}
	return string(b)
}

// defuse keeps a spreadsheet from running a text cell as a formula (OWASP
// "CSV injection"): text that a spreadsheet would read as one (=, +, -, @,
// a tab or a carriage return first) gets a leading apostrophe, which
// spreadsheets hide. Numbers and money are written by their JSON text, not
// as text cells, so a negative amount is never touched.
func defuse(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
