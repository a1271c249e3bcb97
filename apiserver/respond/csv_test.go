package respond

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

type amount int64

func (a amount) MarshalJSON() ([]byte, error) { return []byte("1.5"), nil }

type inner struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

type base struct {
	ID string `json:"id"`
}

type record struct {
	base
	Name   string          `json:"name"`
	Cost   amount          `json:"cost"`
	Share  *float64        `json:"share"`
	Tokens inner           `json:"tokens"`
	Rate   *inner          `json:"rate"`
	Tags   []string        `json:"tags"`
	Meta   json.RawMessage `json:"meta"`
	Secret string          `json:"-"`
}

func TestCSVFlattensLikeJSON(t *testing.T) {
	share := 12.5
	rows := []record{
		{base: base{ID: "a"}, Name: "=1+1", Share: &share, Tokens: inner{3, 4}, Tags: []string{"x", "y"}, Meta: json.RawMessage(`{"k":1}`)},
		{base: base{ID: "b"}, Name: "-plain", Rate: &inner{5, 6}},
	}
	rec := httptest.NewRecorder()
	if err := CSV(rec, rows, "r.csv"); err != nil {
		t.Fatal(err)
	}
	want := "id,name,cost,share,tokens.input,tokens.output,rate.input,rate.output,tags,meta\r\n" +
		"a,'=1+1,1.5,12.5,3,4,,,\"[\"\"x\"\",\"\"y\"\"]\",\"{\"\"k\"\":1}\"\r\n" +
		"b,'-plain,1.5,,0,0,5,6,,\r\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if rec.Header().Get("Content-Disposition") != `attachment; filename="r.csv"` {
		t.Errorf("headers %v", rec.Header())
	}
}

func TestCSVOfOneObjectAndOfNone(t *testing.T) {
	rec := httptest.NewRecorder()
	_ = CSV(rec, inner{1, 2}, "o.csv")
	if got := rec.Body.String(); got != "input,output\r\n1,2\r\n" {
		t.Errorf("one object: %q", got)
	}
	rec = httptest.NewRecorder()
	_ = CSV(rec, []inner(nil), "n.csv")
	if got := rec.Body.String(); got != "input,output\r\n" {
		t.Errorf("no rows: %q", got)
	}
}
