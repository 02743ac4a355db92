package exec

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// aggChunk builds a chunk from its text form: a header line of types
// ("bigint varchar decimal(10,2) date timestamp(3) double boolean null"),
// then one line per row: an op (+I, -D, -U, +U) and the values separated by
// spaces. NULL is NULL, two single quotes the empty string; timestamps are
// written with a T.
func aggChunk(t testing.TB, alloc memory.Allocator, text string) Chunk {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var ts []types.T
	for _, f := range strings.Fields(lines[0]) {
		typ, err := types.Parse(f)
		if f == "null" {
			typ, err = types.NullT, nil
		}
		if err != nil {
			t.Fatalf("header %q: %v", lines[0], err)
		}
		ts = append(ts, typ)
	}
	var rows [][]types.Datum
	var ops []Op
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != len(ts)+1 {
			t.Fatalf("row %q: want an op and %d values", line, len(ts))
		}
		ops = append(ops, aggParseOp(t, f[0]))
		row := make([]types.Datum, len(ts))
		for j, typ := range ts {
			row[j] = aggParseDatum(t, f[j+1], typ)
		}
		rows = append(rows, row)
	}
	names := make([]string, len(ts))
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	return Chunk{Batch: types.BuildRecord(alloc, names, ts, rows), Ops: ops}
}

func aggParseOp(t testing.TB, s string) Op {
	for _, o := range []Op{Insert, Delete, UpdateBefore, UpdateAfter} {
		if o.String() == s {
			return o
		}
	}
	t.Fatalf("bad op %q", s)
	return Insert
}

func aggParseDatum(t testing.TB, s string, typ types.T) types.Datum {
	t.Helper()
	if s == "NULL" {
		return types.NullDatum
	}
	var err error
	var d types.Datum
	switch typ.Physical() {
	case types.PhysBool:
		var b bool
		b, err = strconv.ParseBool(s)
		d = types.BoolDatum(b)
	case types.PhysInt64:
		d.I, err = strconv.ParseInt(s, 10, 64)
	case types.PhysFloat64:
		d.F, err = strconv.ParseFloat(s, 64)
	case types.PhysDecimal:
		d.D, err = decimal128.FromString(s, int32(typ.Precision), int32(typ.Scale))
	case types.PhysString:
		if s == "''" {
			s = ""
		}
		d.S = s
	case types.PhysDate32:
		var days int32
		days, err = types.ParseDate(s)
		d.I = int64(days)
	case types.PhysTimestamp:
		d.I, err = types.ParseTimestamp(s)
	default:
		err = fmt.Errorf("unsupported type %s", typ)
	}
	if err != nil {
		t.Fatalf("value %q of %s: %v", s, typ, err)
	}
	return d
}

// aggFormatRow renders a row for changelog comparisons: exact values, NULL,
// and two single quotes for the empty string.
func aggFormatRow(row []types.Datum, ts []types.T) string {
	parts := make([]string, len(row))
	for i, d := range row {
		parts[i] = types.Format(d, ts[i])
		if !d.Null && ts[i].Physical() == types.PhysString && d.S == "" {
			parts[i] = "''"
		}
	}
	return strings.Join(parts, " ")
}

// aggRoundRow renders a row like aggFormatRow but with doubles rounded to 9
// significant digits, for comparisons with a brute-force recomputation that
// sums in a different order.
func aggRoundRow(row []types.Datum, ts []types.T) string {
	parts := make([]string, len(row))
	for i, d := range row {
		if !d.Null && ts[i].Physical() == types.PhysFloat64 {
			f := d.F
			if math.Abs(f) < 1e-9 {
				f = 0
			}
			parts[i] = strconv.FormatFloat(f, 'g', 9, 64)
			continue
		}
		parts[i] = aggFormatRow([]types.Datum{d}, ts[i:i+1])
	}
	return strings.Join(parts, " ")
}

// aggCollector records emitted chunks as changelog lines and keeps the
// integral of the output.
type aggCollector struct {
	t        testing.TB
	nKeys    int // group key columns, for the changelog shape checks
	ts       []types.T
	lines    []string
	integral map[string]*aggCounted
}

type aggCounted struct {
	row []types.Datum
	n   int64
}

func newAggCollector(t testing.TB, nKeys int) *aggCollector {
	return &aggCollector{t: t, nKeys: nKeys, integral: map[string]*aggCounted{}}
}

func (c *aggCollector) Emit(_ context.Context, ch Chunk) error {
	c.t.Helper()
	if c.ts == nil {
		for _, f := range ch.Batch.Schema().Fields() {
			typ, err := types.FromField(f)
			if err != nil {
				c.t.Fatal(err)
			}
			c.ts = append(c.ts, typ)
		}
	}
	if len(ch.Ops) != ch.NumRows() {
		c.t.Fatalf("chunk has %d rows and %d ops", ch.NumRows(), len(ch.Ops))
	}
	rows := types.Rows(ch.Batch, c.ts)
	c.checkShape(ch, rows)
	for i, row := range rows {
		op := ch.Op(i)
		text := aggFormatRow(row, c.ts)
		c.lines = append(c.lines, op.String()+" "+text)
		e := c.integral[text]
		if e == nil {
			e = &aggCounted{row: row}
			c.integral[text] = e
		}
		if e.n += op.Weight(); e.n < 0 {
			c.t.Fatalf("output retracts %q, which it never emitted", text)
		}
	}
	return nil
}

// checkShape checks that a chunk changes each group at most once, that -U
// is immediately followed by +U of the same group, and that a global
// aggregate emits nothing but its first +I and then updates.
func (c *aggCollector) checkShape(ch Chunk, rows [][]types.Datum) {
	c.t.Helper()
	seen := map[string]bool{}
	for i := 0; i < len(rows); i++ {
		key := aggDatumsKey(rows[i][:c.nKeys])
		if seen[key] {
			c.t.Fatalf("chunk changes group %s twice", aggFormatRow(rows[i][:c.nKeys], c.ts))
		}
		seen[key] = true
		switch ch.Op(i) {
		case UpdateBefore:
			if i+1 == len(rows) || ch.Op(i+1) != UpdateAfter || aggDatumsKey(rows[i+1][:c.nKeys]) != key {
				c.t.Fatalf("-U at row %d is not followed by +U of its group", i)
			}
			i++
		case UpdateAfter:
			c.t.Fatalf("+U at row %d without -U", i)
		case Insert, Delete:
			if c.nKeys == 0 && (ch.Op(i) == Delete || len(c.integral) > 0) {
				c.t.Fatalf("global aggregate emitted %s after its first row", ch.Op(i))
			}
		}
	}
}

// take returns the lines emitted since the last call.
func (c *aggCollector) take() string {
	s := strings.Join(c.lines, "\n")
	c.lines = nil
	return s
}

// rows returns the integrated output, rounded and sorted.
func (c *aggCollector) rows() []string {
	var out []string
	for _, e := range c.integral {
		for range e.n {
			out = append(out, aggRoundRow(e.row, c.ts))
		}
	}
	slices.Sort(out)
	return out
}

// aggDatumsKey identifies a list of datums exactly (with -0 as 0).
func aggDatumsKey(ds []types.Datum) string {
	var sb strings.Builder
	for _, d := range ds {
		if d.F == 0 {
			d.F = 0
		}
		fmt.Fprintf(&sb, "%t/%d/%v/%d:%d/%q|", d.Null, d.I, d.F, d.D.HighBits(), d.D.LowBits(), d.S)
	}
	return sb.String()
}
