package postgres

import (
	"regexp"
	"strings"
	"testing"
)

func TestFillSQL(t *testing.T) {
	sql := "SELECT /* TEMPLATE_BEGIN: cols */ a, b /* TEMPLATE_END */ FROM t /* TEMPLATE: where */" +
		" WHERE /* TEMPLATE_BEGIN: cond */ true /* TEMPLATE_END */ AND /* TEMPLATE_BEGIN: cond */ true /* TEMPLATE_END */"
	if got, want := fillSQL(sql, nil), "SELECT a, b FROM t  WHERE true AND true"; got != want {
		t.Errorf("defaults:\n got %q\nwant %q", got, want)
	}
	got := fillSQL(sql, map[string]string{"cols": "c", "where": "JOIN u USING (id)", "cond": "x = @x"})
	if want := "SELECT c FROM t JOIN u USING (id) WHERE x = @x AND x = @x"; got != want {
		t.Errorf("filled:\n got %q\nwant %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a part without its marker did not panic")
		}
	}()
	fillSQL(sql, map[string]string{"nowhere": "x"})
}

// TestReportSumsFollowRollupSums: the report files list the summed
// columns in rollupSums order, the order sumDest scans them in.
func TestReportSumsFollowRollupSums(t *testing.T) {
	sums, named, added := make([]string, len(rollupSums)), make([]string, len(rollupSums)), make([]string, len(rollupSums))
	for i, c := range rollupSums {
		sums[i] = "sum(" + c + ")::bigint"
		named[i] = "sum(" + c + ")::bigint AS " + c
		added[i] = "coalesce(x." + c + ", 0) + coalesce(s." + c + ", 0)"
	}
	space := regexp.MustCompile(`\s+`)
	lists := map[string][]string{
		"by_bucket.sql": {strings.Join(sums, ", ")}, "by_key.sql": {strings.Join(sums, ", ")},
		"by_key_bucket.sql": {strings.Join(sums, ", ")}, "by_key_sum.sql": {strings.Join(sums, ", ")},
		"full.sql":        {strings.Join(named, ", "), strings.Join(rollupSums, ", "), strings.Join(sums, ", ")},
		"session_top.sql": {strings.Join(named, ", "), strings.Join(added, ", ")},
	}
	for file, want := range lists {
		text := space.ReplaceAllString(mustQuery(file), " ")
		for _, l := range want {
			if !strings.Contains(text, l) {
				t.Errorf("%s does not list %s", file, l)
			}
		}
	}
}
