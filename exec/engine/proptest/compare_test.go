package proptest

import (
	"math"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// testCols are the columns of the comparison tests: an integer, a double
// and a string.
var testCols = []engine.Column{{Name: "n", Type: types.BigIntT}, {Name: "x", Type: types.DoubleT}, {Name: "s", Type: types.VarcharT}}

func r3(n int64, x float64, s string) []types.Datum {
	return []types.Datum{types.IntDatum(n), types.FloatDatum(x), types.StringDatum(s)}
}

func TestCompare(t *testing.T) {
	null := types.NullDatum
	tests := []struct {
		name    string
		on, off [][]types.Datum
		onlyOn  []string
		onlyOff []string
	}{
		{name: "same rows in another order",
			on:  [][]types.Datum{r3(1, 1.5, "a"), r3(2, 2, "b")},
			off: [][]types.Datum{r3(2, 2, "b"), r3(1, 1.5, "a")}},
		{name: "a duplicate counts",
			on:     [][]types.Datum{r3(1, 1.5, "a"), r3(1, 1.5, "a")},
			off:    [][]types.Datum{r3(1, 1.5, "a")},
			onlyOn: []string{"1 | 1.5 | a"}},
		{name: "doubles within the tolerance agree",
			on:  [][]types.Datum{r3(1, 0.1+0.2, "a"), r3(2, 1e12, "b")},
			off: [][]types.Datum{r3(1, 0.3, "a"), r3(2, 1e12*(1+1e-12), "b")}},
		{name: "doubles beyond the tolerance differ",
			on:      [][]types.Datum{r3(1, 1, "a")},
			off:     [][]types.Datum{r3(1, 1+1e-6, "a")},
			onlyOn:  []string{"1 | 1 | a"},
			onlyOff: []string{"1 | 1.000001 | a"}},
		{name: "minus zero is zero",
			on:  [][]types.Datum{r3(1, math.Copysign(0, -1), "a")},
			off: [][]types.Datum{r3(1, 0, "a")}},
		{name: "NULL differs from a value, and the empty string from NULL",
			on:      [][]types.Datum{{null, types.FloatDatum(1), types.StringDatum("")}},
			off:     [][]types.Datum{{types.IntDatum(0), types.FloatDatum(1), null}},
			onlyOn:  []string{"NULL | 1 | (empty)"},
			onlyOff: []string{"0 | 1 | NULL"}},
		{name: "strings compare exactly",
			on:      [][]types.Datum{r3(1, 1, "B")},
			off:     [][]types.Datum{r3(1, 1, "b")},
			onlyOn:  []string{"1 | 1 | B"},
			onlyOff: []string{"1 | 1 | b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(testCols, tc.on, testCols, tc.off)
			if strings.Join(d.OnlyOn, "\n") != strings.Join(tc.onlyOn, "\n") ||
				strings.Join(d.OnlyOff, "\n") != strings.Join(tc.onlyOff, "\n") {
				t.Errorf("got %s", d)
			}
			if d.Empty() != (len(tc.onlyOn)+len(tc.onlyOff) == 0) {
				t.Errorf("Empty() = %v for %s", d.Empty(), d)
			}
		})
	}
}

func TestCompareColumns(t *testing.T) {
	other := append([]engine.Column(nil), testCols...)
	other[1].Type = types.DecimalT(10, 2)
	d := Compare(testCols, nil, other, nil)
	if d.Empty() || !strings.Contains(d.Columns, "x DOUBLE") || !strings.Contains(d.Columns, "x DECIMAL(10,2)") {
		t.Errorf("a column whose type differs: got %q", d.Columns)
	}
}

func TestDiffString(t *testing.T) {
	var d Diff
	for i := range maxShown + 2 {
		d.OnlyOff = append(d.OnlyOff, strings.Repeat("x", i+1))
	}
	s := d.String()
	if !strings.Contains(s, "12 row(s) only with optimizer off") || !strings.Contains(s, "... and 2 more") ||
		strings.Contains(s, "only with optimizer on") {
		t.Errorf("got:\n%s", s)
	}
}
