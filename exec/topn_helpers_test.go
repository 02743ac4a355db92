package exec

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// TopNConfig stands in for topn.Config in the tests of the families that
// still share these helpers: package exec's tests cannot import exec/topn,
// which imports exec. Its fields are those of topn.Config.
type TopNConfig struct {
	Input      []types.T
	Partition  []int
	Order      []ordtree.SortKey
	Limit      int64
	RowNumber  bool
	AppendOnly bool
	Names      []string
}

// topnConfig builds a configuration from the input types ("varchar
// bigint"), the partition ordinals, the order keys written as "1 desc, 0"
// and the limit.
func topnConfig(t testing.TB, input string, part []int, order string, limit int64, rowNumber, appendOnly bool) TopNConfig {
	t.Helper()
	cfg := TopNConfig{Partition: part, Limit: limit, RowNumber: rowNumber, AppendOnly: appendOnly}
	for i, f := range strings.Fields(input) {
		typ, err := types.Parse(f)
		if f == "null" {
			typ, err = types.NullT, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		cfg.Input = append(cfg.Input, typ)
		cfg.Names = append(cfg.Names, "c"+strconv.Itoa(i))
	}
	if rowNumber {
		cfg.Names = append(cfg.Names, "rn")
	}
	for _, k := range strings.Split(order, ",") {
		f := strings.Fields(k)
		if len(f) == 0 {
			continue
		}
		col, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("order %q: %v", order, err)
		}
		cfg.Order = append(cfg.Order, ordtree.SortKey{Col: col, Desc: len(f) > 1 && f[1] == "desc"})
	}
	return cfg
}

// topnStep is one step of an operator test: a chunk in text form (see
// aggChunk) and the changelog it must emit, or the error it must fail with.
// The over-aggregate tests use it.
type topnStep struct {
	in   string
	want string
	err  error
}

// topnCollector records emitted chunks as changelog lines, checks their
// shape and keeps the integral of the output.
type topnCollector struct {
	t        testing.TB
	ts       []types.T
	lines    []string
	integral map[string]int64
}

func newTopNCollector(t testing.TB) *topnCollector {
	return &topnCollector{t: t, integral: map[string]int64{}}
}

// Emit checks that every -U is immediately followed by a +U, and that a
// chunk never both adds and removes the same row (with the same row
// number): the output is a minimal change.
func (c *topnCollector) Emit(_ context.Context, ch Chunk) error {
	c.t.Helper()
	if c.ts == nil {
		for _, f := range ch.Batch.Schema().Fields() {
			typ, err := types.FromField(f)
			if f.Type.ID() == arrow.NULL {
				typ, err = types.NullT, nil
			}
			if err != nil {
				c.t.Fatal(err)
			}
			c.ts = append(c.ts, typ)
		}
	}
	if len(ch.Ops) != ch.NumRows() {
		c.t.Fatalf("chunk has %d rows and %d ops", ch.NumRows(), len(ch.Ops))
	}
	sign := map[string]int64{}
	for i, row := range types.Rows(ch.Batch, c.ts) {
		op := ch.Op(i)
		switch {
		case op == UpdateBefore && (i+1 == ch.NumRows() || ch.Op(i+1) != UpdateAfter):
			c.t.Fatalf("-U at row %d is not followed by +U", i)
		case op == UpdateAfter && (i == 0 || ch.Op(i-1) != UpdateBefore):
			c.t.Fatalf("+U at row %d does not follow -U", i)
		}
		text := aggFormatRow(row, c.ts)
		c.lines = append(c.lines, op.String()+" "+text)
		if sign[text]*op.Weight() < 0 {
			c.t.Fatalf("chunk both adds and removes %q", text)
		}
		sign[text] = op.Weight()
		if c.integral[text] += op.Weight(); c.integral[text] < 0 {
			c.t.Fatalf("output retracts %q, which it never emitted", text)
		}
	}
	return nil
}

// take returns the lines emitted since the last call.
func (c *topnCollector) take() string {
	s := strings.Join(c.lines, "\n")
	c.lines = nil
	return s
}

// rows returns the integrated output, sorted.
func (c *topnCollector) rows() []string {
	var out []string
	for text, n := range c.integral {
		for range n {
			out = append(out, text)
		}
	}
	slices.Sort(out)
	return out
}

// topnCounted is a distinct input row with its multiplicity.
type topnCounted struct {
	row []types.Datum
	n   int64
}

// topnBrute integrates an input changelog (add) and orders rows as Top-N
// does (compare), for the over-aggregate tests' oracle.
type topnBrute struct {
	cfg  TopNConfig
	rows map[string]*topnCounted
}

func (b *topnBrute) add(ch Chunk) {
	for i, row := range types.Rows(ch.Batch, b.cfg.Input) {
		k := aggDatumsKey(row)
		e := b.rows[k]
		if e == nil {
			e = &topnCounted{row: row}
			b.rows[k] = e
		}
		e.n += ch.Op(i).Weight()
	}
}

// compare orders rows by the ORDER BY keys, then by every column ascending.
func (b *topnBrute) compare(x, y []types.Datum) int {
	for _, k := range b.cfg.Order {
		c := types.Compare(x[k.Col], y[k.Col], b.cfg.Input[k.Col])
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	for i, t := range b.cfg.Input {
		if c := types.Compare(x[i], y[i], t); c != 0 {
			return c
		}
	}
	return 0
}

// topnBenchRows is the number of rows of a benchmark chunk, in the middle
// of the 1–8 K the runtime aims for.
const topnBenchRows = 4096

// topnBenchChunk builds a chunk of (partition, score, id) rows: partitions
// drawn from [0, parts), scores random. With retract, the second half of
// the chunk retracts the rows of its first half, so state stays level.
// The over-aggregate benchmarks use it.
func topnBenchChunk(alloc memory.Allocator, r *rand.Rand, parts int, retract bool) Chunk {
	n := topnBenchRows
	cols := make([][]int64, 3)
	for j := range cols {
		cols[j] = make([]int64, n)
	}
	var ops []Op
	if retract {
		ops = make([]Op, n)
	}
	for i := range n {
		cols[0][i], cols[1][i], cols[2][i] = int64(r.IntN(parts)), r.Int64N(1_000_000), int64(i)
		if retract && i >= n/2 {
			for j := range cols {
				cols[j][i] = cols[j][i-n/2]
			}
			ops[i] = Delete
		}
	}
	fields := make([]arrow.Field, 3)
	arrs := make([]arrow.Array, 3)
	for j := range cols {
		fields[j] = types.Field("c", types.BigIntT, true)
		b := array.NewInt64Builder(alloc)
		b.AppendValues(cols[j], nil)
		arrs[j] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return Chunk{Batch: rec, Ops: ops}
}
