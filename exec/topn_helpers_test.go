package exec

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

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
type topnStep struct {
	in   string
	want string
	err  error
}

// topnRunSteps runs steps through a fresh TopN, comparing each step's output
// with its want and the integral of all output with a brute-force Top-N of
// the integral of the input. It stops at the first step that expects an
// error. check, if not nil, is called after every step with the metrics.
func topnRunSteps(t *testing.T, cfg TopNConfig, steps []topnStep, check func(step int, m *OperatorMetrics)) {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	op, err := NewTopN(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env := NewTestEnv(alloc)
	if err := op.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	out := newTopNCollector(t)
	brute := &topnBrute{cfg: cfg, rows: map[string]*topnCounted{}}
	for i, st := range steps {
		ch := aggChunk(t, alloc, st.in)
		brute.add(ch)
		err := op.Process(ctx, 0, ch, out)
		ch.Batch.Release()
		if st.err != nil {
			if !errors.Is(err, st.err) {
				t.Fatalf("step %d: got error %v, want %v", i, err, st.err)
			}
			return
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, want := out.take(), strings.TrimSpace(st.want); got != want {
			t.Fatalf("step %d: emitted\n%s\nwant\n%s", i, got, want)
		}
		topnCheckIntegral(t, i, out, brute)
		if check != nil {
			check(i, env.Metrics)
		}
	}
}

// topnCheckIntegral compares the integrated output with the brute force.
func topnCheckIntegral(t testing.TB, step int, out *topnCollector, brute *topnBrute) {
	t.Helper()
	got, want := out.rows(), brute.result()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("step %d: integrated output\n%s\nbrute force\n%s", step,
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
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

// topnBrute integrates an input changelog and recomputes the Top-N from
// scratch by sorting every partition, as the oracle of the tests.
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

// result returns the rows numbered 1..Limit of every partition, formatted
// with their row number when the output has one, sorted.
func (b *topnBrute) result() []string {
	parts := map[string][][]types.Datum{}
	for _, e := range b.rows {
		var key []types.Datum
		for _, c := range b.cfg.Partition {
			key = append(key, e.row[c])
		}
		k := aggDatumsKey(key)
		for range e.n {
			parts[k] = append(parts[k], e.row)
		}
	}
	outTypes := b.cfg.Input
	if b.cfg.RowNumber {
		outTypes = append(slices.Clip(outTypes), types.BigIntT)
	}
	var out []string
	for _, rows := range parts {
		slices.SortFunc(rows, b.compare)
		for i, row := range rows[:min(int64(len(rows)), b.cfg.Limit)] {
			if b.cfg.RowNumber {
				row = append(slices.Clip(row), types.IntDatum(int64(i+1)))
			}
			out = append(out, aggFormatRow(row, outTypes))
		}
	}
	slices.Sort(out)
	return out
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
