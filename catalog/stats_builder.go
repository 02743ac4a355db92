package catalog

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/axiomhq/hyperloglog"
)

// StatsBuilder accumulates the statistics of an object's rows from Arrow
// batches: the row count, the width of their values, and per column
// a HyperLogLog sketch of its values and the count of its NULLs. It is not
// safe for concurrent use; builders fed in parallel combine with Merge.
type StatsBuilder struct {
	cols     []Column
	rows     int64
	bits     int64 // of the rows' values in Arrow's layout
	nulls    []int64
	sketches []colSketch
	hashes   []uint64 // scratch: one column's value hashes
}

// NewStatsBuilder returns a builder for batches whose columns are cols, in
// order.
func NewStatsBuilder(cols []Column) *StatsBuilder {
	b := &StatsBuilder{cols: cols, nulls: make([]int64, len(cols)), sketches: make([]colSketch, len(cols))}
	for i := range b.sketches {
		b.sketches[i] = newColSketch()
	}
	return b
}

// Rows returns the rows added so far.
func (b *StatsBuilder) Rows() int64 { return b.rows }

// Add accumulates the rows of rec, whose columns must be the builder's.
// Each column is read in one typed loop that hashes its values in place
// (never boxing or copying them) into a reused buffer, and a second loop
// counts the hashes.
func (b *StatsBuilder) Add(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != len(b.cols) {
		return fmt.Errorf("catalog: statistics of %d columns fed a batch of %d", len(b.cols), rec.NumCols())
	}
	for i := range b.cols {
		arr := rec.Column(i)
		hashes, bits, err := hashColumn(b.hashes[:0], arr)
		if err != nil {
			return fmt.Errorf("catalog: statistics of column %s: %w", b.cols[i].Name, err)
		}
		b.sketches[i].add(hashes)
		b.hashes = hashes
		b.nulls[i] += int64(arr.NullN())
		if b.cols[i].Nullable {
			bits += int64(arr.Len()) // a validity bit per row
		}
		b.bits += bits
	}
	b.rows += rec.NumRows()
	return nil
}

// Merge adds what o accumulated, over the same columns, to b.
func (b *StatsBuilder) Merge(o *StatsBuilder) error {
	if len(o.cols) != len(b.cols) {
		return fmt.Errorf("catalog: cannot merge statistics of %d columns into %d", len(o.cols), len(b.cols))
	}
	for i := range b.sketches {
		if err := b.sketches[i].merge(&o.sketches[i]); err != nil {
			return fmt.Errorf("catalog: merging statistics of column %s: %w", b.cols[i].Name, err)
		}
		b.nulls[i] += o.nulls[i]
	}
	b.rows += o.rows
	b.bits += o.bits
	return nil
}

// Stats returns the accumulated figures, marked as coming from source at
// time now. It leaves RowsPerSec zero: a builder sees rows, not time.
func (b *StatsBuilder) Stats(source string, now time.Time) (Stats, error) {
	s := Stats{Rows: b.rows, Source: source, Updated: now, Columns: make(map[string]ColumnStats, len(b.cols))}
	if b.rows > 0 {
		s.RowBytes = float64(b.bits) / 8 / float64(b.rows)
	}
	for i, c := range b.cols {
		cs, err := columnStats(&b.sketches[i], b.rows, b.nulls[i])
		if err != nil {
			return Stats{}, fmt.Errorf("catalog: statistics of column %s: %w", c.Name, err)
		}
		s.Columns[strings.ToLower(c.Name)] = cs
	}
	return s, nil
}

// columnStats summarizes a column's sketch and NULL count over rows rows.
func columnStats(sk *colSketch, rows, nulls int64) (ColumnStats, error) {
	sketch, err := sk.marshal()
	if err != nil {
		return ColumnStats{}, err
	}
	// An estimate can overshoot the values actually seen; never claim more
	// distinct values than non-NULL rows.
	cs := ColumnStats{Distinct: math.Min(sk.estimate(), float64(rows-nulls)), Sketch: sketch}
	if rows > 0 {
		cs.NullFrac = float64(nulls) / float64(rows)
	}
	return cs, nil
}

// MergeStats combines the figures of two disjoint sets of an object's rows
// (say, what one ANALYZE saw and rows that arrived later): row counts add,
// the row width and null fractions are averaged by rows, and sketches are
// unioned so distinct counts are estimated afresh. Rates do not add across
// observations of the same input, so the rate, source and time are those
// of the newer one (b when equally new); a rate of 0 (unknown) is taken
// from the other. A column known to only one side keeps that side's
// figures.
func MergeStats(a, b Stats) (Stats, error) {
	if a.Updated.After(b.Updated) {
		a, b = b, a
	}
	out := Stats{Rows: a.Rows + b.Rows, RowsPerSec: b.RowsPerSec, Source: b.Source, Updated: b.Updated}
	if out.RowsPerSec == 0 {
		out.RowsPerSec = a.RowsPerSec
	}
	out.RowBytes = weighted(a.RowBytes, a.Rows, b.RowBytes, b.Rows)
	if len(a.Columns)+len(b.Columns) > 0 {
		out.Columns = make(map[string]ColumnStats, max(len(a.Columns), len(b.Columns)))
	}
	for name, ac := range a.Columns {
		bc, ok := b.Columns[name]
		if !ok {
			out.Columns[name] = ac
			continue
		}
		cs, err := mergeColumn(ac, a.Rows, bc, b.Rows)
		if err != nil {
			return Stats{}, fmt.Errorf("catalog: merging statistics of column %s: %w", name, err)
		}
		out.Columns[name] = cs
	}
	for name, bc := range b.Columns {
		if _, ok := a.Columns[name]; !ok {
			out.Columns[name] = bc
		}
	}
	return out, nil
}

func mergeColumn(a ColumnStats, aRows int64, b ColumnStats, bRows int64) (ColumnStats, error) {
	rows := aRows + bRows
	nulls := int64(math.Round(a.NullFrac*float64(aRows) + b.NullFrac*float64(bRows)))
	if len(a.Sketch) == 0 || len(b.Sketch) == 0 {
		// Without both sketches the union's size is unknown; the larger
		// side's count is a lower bound.
		return ColumnStats{Distinct: math.Max(a.Distinct, b.Distinct), NullFrac: weighted(a.NullFrac, aRows, b.NullFrac, bRows)}, nil
	}
	var sk, other hyperloglog.Sketch
	if err := sk.UnmarshalBinary(a.Sketch); err != nil {
		return ColumnStats{}, err
	}
	if err := other.UnmarshalBinary(b.Sketch); err != nil {
		return ColumnStats{}, err
	}
	if err := sk.Merge(&other); err != nil {
		return ColumnStats{}, err
	}
	return columnStats(&colSketch{dense: &sk}, rows, nulls)
}

// weighted averages x (over n rows) and y (over m rows).
func weighted(x float64, n int64, y float64, m int64) float64 {
	if n+m == 0 {
		if y != 0 {
			return y
		}
		return x
	}
	return (x*float64(n) + y*float64(m)) / float64(n+m)
}
