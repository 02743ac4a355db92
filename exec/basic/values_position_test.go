package basic

import (
	"context"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/position"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// valuesRows returns n rows (id, name) with NULLs among the names.
func valuesRows(n int) [][]types.Datum {
	rows := make([][]types.Datum, n)
	for i := range rows {
		name := types.StringDatum("v" + string(rune('a'+i%26)))
		if i%5 == 0 {
			name = types.NullDatum
		}
		rows[i] = []types.Datum{types.IntDatum(int64(i)), name}
	}
	return rows
}

// valuesOpener returns an opener of a ValuesSource of rows.
func valuesOpener(rows [][]types.Datum) postest.Opener {
	return func(t testing.TB) exec.Positioned {
		v := &ValuesSource{Names: []string{"id", "name"}, Types: []types.T{types.BigIntT, types.VarcharT}, Rows: rows}
		if err := v.Open(context.Background(), exec.NewTestEnv(exectest.Alloc(t))); err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestValuesPosition reads constant rows in two parts, cut at random
// chunk boundaries, at the start and at the end, and checks they make the
// uninterrupted read chunk for chunk.
func TestValuesPosition(t *testing.T) {
	rows := valuesRows(5*exec.BatchRows + 17)
	postest.Resume(t, valuesOpener(rows), valuesOpener(rows), -1, 4, true)
	postest.ExhaustedAtEnd(t, valuesOpener(rows), valuesOpener(rows))
}

// TestValuesPositionRefused checks that positions of other rows, past
// the last row, damaged or of another kind of source are refused.
func TestValuesPositionRefused(t *testing.T) {
	rows := valuesRows(3*exec.BatchRows + 1)
	posAfter := func(rows [][]types.Datum, chunks int) []byte {
		src := valuesOpener(rows)(t)
		postest.Read(t, src, chunks)
		pos, err := src.Position()
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	changed := valuesRows(len(rows))
	changed[7][1] = types.StringDatum("other")
	pos := posAfter(rows, 1)
	hash := valuesOpener(rows)(t).(*ValuesSource)
	hash.hashRows()
	past := position.NewWriter(valuesTag)
	past.Uint(hash.hash)
	past.Uint(uint64(len(rows)))
	past.Uint(uint64(len(rows) + 1))
	other := position.NewWriter("file")
	postest.RefusesAll(t, valuesOpener(rows), []postest.Refusal{
		{Name: "truncated", Pos: pos[:len(pos)-1], Want: "checksum mismatch"},
		{Name: "another source", Pos: other.Bytes(), Want: `a "file" source's, not a values source's`},
		{Name: "fewer rows", Pos: posAfter(rows[:len(rows)-1], 1), Want: "the position is of 12288 rows, not 12289"},
		{Name: "other rows", Pos: posAfter(changed, 1), Want: "the position is of other rows or columns"},
		{Name: "past the last row", Pos: past.Bytes(), Want: "row 12290 is past the last row (12289)"},
	}, nil)
	src := valuesOpener(rows)(t)
	postest.Read(t, src, 1)
	if err := src.Seek(context.Background(), pos); err == nil {
		t.Fatal("Seek after Next succeeded")
	}
}
