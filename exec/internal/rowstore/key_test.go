package rowstore

import (
	"bytes"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/rowkey"
)

// TestKeysAreRowkeys checks, one column at a time over entryRows and a
// row with +0 and another NaN, that AppendKey encodes a stored row as
// rowkey.Append encodes it, and that KeyEqual and KeySame hold exactly
// when the two rows' rowkey encodings are equal.
func TestKeysAreRowkeys(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	rows := append([][]types.Datum(nil), entryRows...)
	extra := append([]types.Datum(nil), entryRows[0]...)
	extra[1] = types.FloatDatum(0)
	rows = append(rows, extra, entryRows[1])
	nan := append([]types.Datum(nil), entryRows[1]...)
	nan[1] = types.FloatDatum(math.Float64frombits(math.Float64bits(math.NaN()) ^ 1)) // another NaN's bits
	rows = append(rows, nan)
	b := types.BuildRecord(alloc, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, entryTypes, rows)
	defer b.Release()
	s, d := New(entryTypes), New(entryTypes)
	for i := range rows {
		s.Add(b.Columns(), i)
		d.Add(b.Columns(), i)
	}
	for j := range entryTypes {
		col := []arrow.Array{b.Column(j)}
		for a := range rows {
			want := rowkey.Append(nil, col, a)
			if got := s.AppendKey(nil, int32(a), []int{j}); !bytes.Equal(got, want) {
				t.Errorf("column %d, row %d: AppendKey %x, rowkey %x", j, a, got, want)
			}
			for k := range rows {
				eq := bytes.Equal(want, rowkey.Append(nil, col, k))
				if got := s.Cols[j].KeyEqual(int32(a), b.Column(j), k); got != eq {
					t.Errorf("column %d: KeyEqual(row %d, row %d) = %v, rowkey says %v", j, a, k, got, eq)
				}
				if got := s.Cols[j].KeySame(int32(a), &d.Cols[j], int32(k)); got != eq {
					t.Errorf("column %d: KeySame(row %d, row %d) = %v, rowkey says %v", j, a, k, got, eq)
				}
			}
		}
	}
}
