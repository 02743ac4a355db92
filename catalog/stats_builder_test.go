package catalog_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

var statsCols = []catalog.Column{
	{Name: "id", Type: types.BigIntT},
	{Name: "Name", Type: types.VarcharT, Nullable: true},
	{Name: "price", Type: types.DoubleT, Nullable: true},
	{Name: "ok", Type: types.BoolT, Nullable: true},
	{Name: "d", Type: types.DateT, Nullable: true},
	{Name: "amount", Type: types.DecimalT(10, 2), Nullable: true},
	{Name: "ts", Type: types.TimestampT(3), Nullable: true},
}

// batch builds a batch of statsCols from rows of Datums.
func batch(t *testing.T, alloc memory.Allocator, rows [][]types.Datum) arrow.RecordBatch {
	t.Helper()
	o := &catalog.Object{Columns: statsCols}
	cols := make([]arrow.Array, len(statsCols))
	for i, c := range statsCols {
		ds := make([]types.Datum, len(rows))
		for r := range rows {
			ds[r] = rows[r][i]
		}
		cols[i] = types.BuildArray(alloc, c.Type, ds)
	}
	rec := array.NewRecordBatch(o.Schema(), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func row(id int64, name string, price float64, ok bool, null bool) []types.Datum {
	r := []types.Datum{types.IntDatum(id), types.StringDatum(name), types.FloatDatum(price), types.BoolDatum(ok),
		types.IntDatum(19000 + id%3), types.NullDatum, types.IntDatum(id * 1000)}
	if null {
		r[1], r[2], r[3] = types.NullDatum, types.NullDatum, types.NullDatum
	}
	return r
}

func TestStatsBuilderCountsSmallDomainsExactly(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	b := catalog.NewStatsBuilder(statsCols)
	rec := batch(t, alloc, [][]types.Datum{
		row(1, "ann", 1.5, true, false), row(2, "bob", 0, false, false), row(3, "ann", math.Copysign(0, -1), true, false),
		row(4, "", 2.5, true, true),
	})
	defer rec.Release()
	if err := b.Add(rec); err != nil {
		t.Fatal(err)
	}
	// A slice of the batch: only its rows count, not its buffers' others.
	sl := rec.NewSlice(0, 2)
	defer sl.Release()
	if err := b.Add(sl); err != nil {
		t.Fatal(err)
	}
	at := time.Unix(100, 0)
	s, err := b.Stats(catalog.StatsAnalyze, at)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 6 || s.Source != catalog.StatsAnalyze || !s.Updated.Equal(at) || s.RowsPerSec != 0 {
		t.Fatalf("stats: %+v", s)
	}
	want := map[string][2]float64{ // distinct, null fraction
		"id": {4, 0}, "name": {2, 1.0 / 6}, "price": {2, 1.0 / 6}, "ok": {2, 1.0 / 6},
		"d": {3, 0}, "amount": {0, 1}, "ts": {4, 0},
	}
	for name, w := range want {
		c, ok := s.Columns[name]
		if !ok || c.Distinct != w[0] || math.Abs(c.NullFrac-w[1]) > 1e-9 || len(c.Sketch) == 0 {
			t.Errorf("%s: %+v, want distinct %v null_frac %v", name, c, w[0], w[1])
		}
	}
	// Bytes per row: id 8 (NOT NULL: no validity bit), price and ts 8,
	// d 4, amount 16, ok 1/8, name 4 per offset plus 15 bytes over 6 rows,
	// and a validity bit for each of the six nullable columns.
	if want := 8 + 8 + 8 + 4 + 16 + 0.125 + 4 + 2.5 + 6.0/8; s.RowBytes != want {
		t.Errorf("row bytes %v, want %v", s.RowBytes, want)
	}
}

func TestStatsBuilderEstimatesLargeDomainsAndMerges(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	// Two builders over overlapping id ranges: 0..59,999 and 40,000..99,999
	// make 100,000 distinct ids; names repeat every 5,000.
	parts := [2]*catalog.StatsBuilder{catalog.NewStatsBuilder(statsCols), catalog.NewStatsBuilder(statsCols)}
	for p, lo := range []int64{0, 40000} {
		for start := lo; start < lo+60000; start += 4096 {
			var rows [][]types.Datum
			for id := start; id < min(start+4096, lo+60000); id++ {
				rows = append(rows, row(id, fmt.Sprintf("n%d", id%5000), float64(id%100), id%2 == 0, id%10 == 0))
			}
			rec := batch(t, alloc, rows)
			if err := parts[p].Add(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
	}
	first, err := parts[0].Stats(catalog.StatsAnalyze, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	second, err := parts[1].Stats(catalog.StatsObserved, time.Unix(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := parts[0].Merge(parts[1]); err != nil {
		t.Fatal(err)
	}
	merged, err := parts[0].Stats(catalog.StatsAnalyze, time.Unix(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	if merged.Rows != 120000 {
		t.Fatalf("rows %d", merged.Rows)
	}
	within := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*want {
			t.Errorf("%s: %v, want %v within %.0f%%", what, got, want, tol*100)
		}
	}
	within("id distinct", merged.Columns["id"].Distinct, 100000, 0.05)
	// Every tenth row's name and price are NULL: names whose number ends
	// in 0 never appear, nor prices that are multiples of 10.
	within("name distinct", merged.Columns["name"].Distinct, 4500, 0.05)
	if d := merged.Columns["price"].Distinct; d != 90 {
		t.Errorf("price distinct: %v, want exactly 90", d)
	}
	within("name null_frac", merged.Columns["name"].NullFrac, 0.1, 0.01)

	// MergeStats over the two parts' Stats agrees with merging builders.
	ms, err := catalog.MergeStats(second, first)
	if err != nil {
		t.Fatal(err)
	}
	if ms.Rows != 120000 || ms.Source != catalog.StatsObserved || !ms.Updated.Equal(time.Unix(2, 0)) {
		t.Fatalf("merged stats: %+v", ms)
	}
	for _, c := range []string{"id", "name", "price", "ok", "d", "ts"} {
		if ms.Columns[c].Distinct != merged.Columns[c].Distinct {
			t.Errorf("%s: MergeStats %v, Merge %v", c, ms.Columns[c].Distinct, merged.Columns[c].Distinct)
		}
	}
	within("merged row bytes", ms.RowBytes, merged.RowBytes, 0.001)
	within("merged null_frac", ms.Columns["name"].NullFrac, merged.Columns["name"].NullFrac, 0.001)
}

func TestMergeStatsKeepsOneSidedFigures(t *testing.T) {
	a := catalog.Stats{Rows: 10, RowsPerSec: 50, RowBytes: 8, Updated: time.Unix(1, 0), Source: catalog.StatsAnalyze,
		Columns: map[string]catalog.ColumnStats{"x": {Distinct: 4, NullFrac: 0.5}}}
	b := catalog.Stats{Rows: 30, RowBytes: 16, Updated: time.Unix(2, 0), Source: catalog.StatsObserved,
		Columns: map[string]catalog.ColumnStats{"x": {Distinct: 9}, "y": {Distinct: 2}}}
	s, err := catalog.MergeStats(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 40 || s.RowsPerSec != 50 || s.RowBytes != 14 || s.Source != catalog.StatsObserved {
		t.Fatalf("merged: %+v", s)
	}
	if x := s.Columns["x"]; x.Distinct != 9 || x.NullFrac != 0.125 {
		t.Errorf("x without sketches: %+v", x)
	}
	if y := s.Columns["y"]; y.Distinct != 2 {
		t.Errorf("y: %+v", y)
	}
}

func TestStatsBuilderRejectsMismatchedBatches(t *testing.T) {
	b := catalog.NewStatsBuilder(statsCols[:1])
	alloc := memory.NewGoAllocator()
	rec := batch(t, alloc, [][]types.Datum{row(1, "a", 1, true, false)})
	defer rec.Release()
	if err := b.Add(rec); err == nil {
		t.Fatal("a batch with other columns must be refused")
	}
	if err := b.Merge(catalog.NewStatsBuilder(statsCols)); err == nil {
		t.Fatal("merging other columns must be refused")
	}
}

// BenchmarkStatsBuilderAdd measures the per-batch cost of statistics over
// a 4,096-row batch of every column type.
func BenchmarkStatsBuilderAdd(b *testing.B) {
	t := &testing.T{}
	var rows [][]types.Datum
	for id := range int64(4096) {
		rows = append(rows, row(id, fmt.Sprintf("name-%d", id%700), float64(id), id%3 == 0, id%17 == 0))
	}
	rec := batch(t, memory.NewGoAllocator(), rows)
	defer rec.Release()
	sb := catalog.NewStatsBuilder(statsCols)
	b.ReportAllocs()
	for b.Loop() {
		if err := sb.Add(rec); err != nil {
			b.Fatal(err)
		}
	}
}
