package file

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// TestDecoder decodes single JSON and CSV records by the file source's
// rules: good ones become rows, bad ones say which column and why and
// add nothing.
func TestDecoder(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer alloc.AssertSize(t, 0)
	cols := []catalog.Column{{Name: "id", Type: types.BigIntT}, {Name: "name", Type: types.VarcharT, Nullable: true}}
	for _, tc := range []struct {
		format string
		recs   []string
		errs   []string
		want   string
	}{
		{FormatJSON, []string{`{"id": 1, "name": "a"}`, `{"id": "x"}`, `{"id": 2}` + "\n", `{"id": 3`},
			[]string{"", `column id: cannot parse "x" as BIGINT`, "", "malformed JSON: expected ',' or '}' at byte 9"}, `[1 2] ["a" (null)]`},
		{FormatCSV, []string{"1,a\n", "2", "3,", "4,b\n5,c"},
			[]string{"", "expected 2 fields, got 1", "", "more than one CSV record in one message"}, `[1 3] ["a" (null)]`},
	} {
		d, err := NewDecoder(tc.format, 0, cols, alloc, 8)
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range tc.recs {
			got := ""
			if err := d.Decode([]byte(rec)); err != nil {
				got = err.Error()
			}
			if got != tc.errs[i] {
				t.Errorf("%s %q: error %q, want %q", tc.format, rec, got, tc.errs[i])
			}
		}
		arrs := d.Finish()
		got := ""
		for j, a := range arrs {
			if j > 0 {
				got += " "
			}
			got += a.String()
			a.Release()
		}
		if got != tc.want {
			t.Errorf("%s: rows %s, want %s", tc.format, got, tc.want)
		}
		d.Release()
	}
}
