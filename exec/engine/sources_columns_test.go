package engine

import (
	"slices"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// TestReadColumns checks the columns a source that reads some of its
// columns is opened with, and the ordinals the scan then takes from its
// chunks: the columns read, in their declared order and once each, and
// the first when the scan reads none.
func TestReadColumns(t *testing.T) {
	var cols []catalog.Column
	for _, n := range []string{"a", "b", "c", "d"} {
		cols = append(cols, catalog.Column{Name: n, Type: types.BigIntT})
	}
	for _, tc := range []struct {
		ords     []int
		read     []string
		remapped []int
	}{
		{[]int{0, 1, 2, 3}, []string{"a", "b", "c", "d"}, []int{0, 1, 2, 3}},
		{[]int{1, 3}, []string{"b", "d"}, []int{0, 1}},
		{[]int{3, 1, 3}, []string{"b", "d"}, []int{1, 0, 1}},
		{[]int{2}, []string{"c"}, []int{0}},
		{nil, []string{"a"}, []int{}},
	} {
		read, remapped := readColumns(cols, tc.ords)
		var names []string
		for _, c := range read {
			names = append(names, c.Name)
		}
		if !slices.Equal(names, tc.read) || !slices.Equal(remapped, tc.remapped) {
			t.Errorf("ords %v: read %v with ordinals %v, want %v with %v", tc.ords, names, remapped, tc.read, tc.remapped)
		}
	}
}
