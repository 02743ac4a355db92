package exec

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// winTypes parses a header of SQL type names ("timestamp(3) bigint
// varchar"); "null" is the NULL type.
func winTypes(t testing.TB, header string) []types.T {
	t.Helper()
	var ts []types.T
	for _, f := range strings.Fields(header) {
		if f == "null" {
			ts = append(ts, types.NullT)
			continue
		}
		typ, err := types.Parse(f)
		if err != nil {
			t.Fatalf("header %q: %v", header, err)
		}
		ts = append(ts, typ)
	}
	return ts
}

// winChunk builds a chunk from its text form: a header line of types, then
// one line per row: an op (+I, -D, -U, +U) and the values separated by
// spaces. NULL is NULL and two apostrophes the empty string; a timestamp
// is its count of milliseconds since the epoch. A chunk of inserts only has nil ops.
func winChunk(t testing.TB, alloc memory.Allocator, text string) Chunk {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	ts := winTypes(t, lines[0])
	var rows [][]types.Datum
	var ops []Op
	allInserts := true
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != len(ts)+1 {
			t.Fatalf("row %q: want an op and %d values", line, len(ts))
		}
		op := aggParseOp(t, f[0])
		allInserts = allInserts && op == Insert
		ops = append(ops, op)
		row := make([]types.Datum, len(ts))
		for j, typ := range ts {
			row[j] = winParseDatum(t, f[j+1], typ)
		}
		rows = append(rows, row)
	}
	if allInserts {
		ops = nil
	}
	names := make([]string, len(ts))
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	return Chunk{Batch: types.BuildRecord(alloc, names, ts, rows), Ops: ops}
}

// winParseDatum parses a value as aggParseDatum does, except that a
// timestamp or interval is a count of milliseconds.
func winParseDatum(t testing.TB, s string, typ types.T) types.Datum {
	t.Helper()
	switch p := typ.Physical(); {
	case s == "NULL" || (p != types.PhysTimestamp && p != types.PhysDuration):
		return aggParseDatum(t, s, typ)
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("value %q of %s: %v", s, typ, err)
	}
	return types.Datum{I: ms}
}

// winFormat renders a value as winChunk reads it: timestamps in ms.
func winFormat(d types.Datum, typ types.T) string {
	switch {
	case d.Null:
		return "NULL"
	case typ.Physical() == types.PhysTimestamp:
		return strconv.FormatInt(d.I, 10)
	case typ.Physical() == types.PhysString && d.S == "":
		return "''"
	}
	return types.Format(d, typ)
}

func winFormatRow(row []types.Datum, ts []types.T) string {
	parts := make([]string, len(row))
	for i, d := range row {
		parts[i] = winFormat(d, ts[i])
	}
	return strings.Join(parts, " ")
}

// winCollector records emitted chunks as changelog lines and keeps the
// integral of the output.
type winCollector struct {
	t        testing.TB
	ts       []types.T
	lines    []string
	integral map[string]int64
}

func newWinCollector(t testing.TB) *winCollector {
	return &winCollector{t: t, integral: map[string]int64{}}
}

func (c *winCollector) Emit(_ context.Context, ch Chunk) error {
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
	if ch.Ops != nil && len(ch.Ops) != ch.NumRows() {
		c.t.Fatalf("chunk has %d rows and %d ops", ch.NumRows(), len(ch.Ops))
	}
	if ch.NumRows() == 0 {
		c.t.Fatal("empty chunk emitted")
	}
	for i, row := range types.Rows(ch.Batch, c.ts) {
		op := ch.Op(i)
		switch {
		case op == UpdateBefore && (i+1 == ch.NumRows() || ch.Op(i+1) != UpdateAfter):
			c.t.Fatalf("-U at row %d is not followed by +U", i)
		case op == UpdateAfter && (i == 0 || ch.Op(i-1) != UpdateBefore):
			c.t.Fatalf("+U at row %d does not follow a -U", i)
		}
		text := winFormatRow(row, c.ts)
		c.lines = append(c.lines, op.String()+" "+text)
		if c.integral[text] += op.Weight(); c.integral[text] < 0 {
			c.t.Fatalf("output retracts %q, which it never emitted", text)
		}
	}
	return nil
}

// take returns the lines emitted since the last call.
func (c *winCollector) take() string {
	s := strings.Join(c.lines, "\n")
	c.lines = nil
	return s
}

// rows returns the integrated output, sorted.
func (c *winCollector) rows() []string {
	var out []string
	for text, n := range c.integral {
		for range n {
			out = append(out, text)
		}
	}
	slices.Sort(out)
	return out
}

// winStep is one step of an operator test: a chunk in text form, or a
// control message when ctl is set (wm is a watermark's value), then the
// changelog the step must emit (or the error it must fail with), then an
// optional check.
type winStep struct {
	in    string
	ctl   ControlKind
	wm    int64
	want  string
	err   error
	check func(t *testing.T)
}

// winTrim removes the indentation and blank lines of a want text.
func winTrim(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// winRun opens op with env, runs steps through it, comparing each step's
// output with its want, and closes op. It stops at the first step that
// expects an error. It returns the collector of the output.
func winRun(t *testing.T, op Operator, env *Env, steps []winStep) *winCollector {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	out := newWinCollector(t)
	for i, st := range steps {
		var err error
		if st.ctl != 0 {
			err = op.OnControl(ctx, Control{Kind: st.ctl, Watermark: st.wm}, out)
		} else {
			ch := winChunk(t, env.Alloc, st.in)
			err = op.Process(ctx, 0, ch, out)
			ch.Batch.Release()
		}
		if st.err != nil {
			if !errors.Is(err, st.err) {
				t.Fatalf("step %d: got error %v, want %v", i, err, st.err)
			}
			return out
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, want := out.take(), winTrim(st.want); got != want {
			t.Errorf("step %d: got\n%s\nwant\n%s", i, got, want)
		}
		if st.check != nil {
			st.check(t)
		}
	}
	return out
}
