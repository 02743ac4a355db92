package exectest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// Collector is an Emitter that records an operator's output as changelog
// lines ("+I 1 a"), checks the shape of every chunk and integrates the
// output. The zero value is not usable; use NewCollector.
type Collector struct {
	t      testing.TB
	opts   CollectorOptions
	ts     []types.T
	lines  []string
	rows   map[string]*heldRow // the integral, by Key of the row
	any    bool                // a row was emitted
	schema *arrow.Schema       // of the last chunk
}

// CollectorOptions are the checks and the rendering of a Collector.
type CollectorOptions struct {
	// Format renders timestamps (Text or Millis).
	Format Format
	// KeyCols, when positive, says the first KeyCols columns are a key of
	// the output (a grouped aggregate's groups): a chunk changes each key
	// at most once, and a -U is followed by the +U of its key.
	KeyCols int
	// Global says the output is a global aggregate's single row: after
	// its first +I it only ever updates, and a chunk changes it at most
	// once (as if KeyCols were a key of no columns).
	Global bool
	// Minimal says a chunk never both adds and removes the same row: the
	// operator nets its changes.
	Minimal bool
	// Exact says Rows renders values exactly (FormatRow), doubles
	// unrounded: for an oracle that recomputes doubles as the operator
	// does, bit for bit.
	Exact bool
}

// heldRow is a row of a collector's integral, with its rendering for Rows.
type heldRow struct {
	Counted
	text string
}

var _ exec.Emitter = (*Collector)(nil)

// NewCollector returns a collector with the given checks.
func NewCollector(t testing.TB, opts CollectorOptions) *Collector {
	return &Collector{t: t, opts: opts, rows: map[string]*heldRow{}}
}

// Emit records and checks a chunk. It fails the test on an empty chunk, a
// chunk whose ops do not match its rows, a -U not followed by its +U, a
// +U without a -U, or a retraction of a row not held. Rows are integrated
// by value as SQL compares them (Key): a retraction of -0 retracts a +0
// the output held, as an operator that finds the row it retracts by
// equality emits it.
func (c *Collector) Emit(_ context.Context, ch exec.Chunk) error {
	c.t.Helper()
	n := ch.NumRows()
	if n == 0 {
		c.t.Fatal("empty chunk emitted")
	}
	if c.ts == nil {
		c.ts = SchemaTypes(c.t, ch.Batch.Schema())
	}
	c.schema = ch.Batch.Schema()
	if ch.Ops != nil && len(ch.Ops) != n {
		c.t.Fatalf("chunk has %d rows and %d ops", n, len(ch.Ops))
	}
	rows := types.Rows(ch.Batch, c.ts)
	keys := map[string]bool{}
	sign := map[string]int64{}
	for i, row := range rows {
		op := ch.Op(i)
		switch {
		case op == exec.UpdateBefore && (i+1 == n || ch.Op(i+1) != exec.UpdateAfter):
			c.t.Fatalf("-U at row %d is not followed by +U", i)
		case op == exec.UpdateAfter && (i == 0 || ch.Op(i-1) != exec.UpdateBefore):
			c.t.Fatalf("+U at row %d does not follow -U", i)
		}
		if k := c.opts.KeyCols; (k > 0 || c.opts.Global) && op != exec.UpdateAfter {
			key := Key(row[:k])
			if keys[key] {
				c.t.Fatalf("chunk changes key %s twice", FormatRow(row[:k], c.ts, c.opts.Format))
			}
			keys[key] = true
			if op == exec.UpdateBefore && Key(rows[i+1][:k]) != key {
				c.t.Fatalf("-U at row %d is followed by the +U of another key", i)
			}
		}
		if c.opts.Global && (op == exec.Delete || (op == exec.Insert && c.any)) {
			c.t.Fatalf("global aggregate emitted %s after its first row", op)
		}
		text := FormatRow(row, c.ts, c.opts.Format)
		if c.opts.Minimal {
			if sign[text]*op.Weight() < 0 {
				c.t.Fatalf("chunk both adds and removes %q", text)
			}
			sign[text] = op.Weight()
		}
		c.lines = append(c.lines, op.String()+" "+text)
		c.any = true
		k := Key(row)
		e := c.rows[k]
		if e == nil {
			e = &heldRow{Counted: Counted{Row: row}, text: c.render(row)}
			c.rows[k] = e
		}
		if e.N += op.Weight(); e.N < 0 {
			c.t.Fatalf("output retracts %q, which it never emitted", text)
		}
		if e.N == 0 {
			delete(c.rows, k)
		}
	}
	return nil
}

// Schema returns the schema of the last chunk emitted, or nil.
func (c *Collector) Schema() *arrow.Schema { return c.schema }

// Take returns the changelog lines recorded since the last call.
func (c *Collector) Take() string {
	s := strings.Join(c.lines, "\n")
	c.lines = nil
	return s
}

// render renders a row for Rows: exactly, or with doubles rounded.
func (c *Collector) render(row []types.Datum) string {
	if c.opts.Exact {
		return FormatRow(row, c.ts, c.opts.Format)
	}
	return RoundRow(row, c.ts, c.opts.Format)
}

// Rows returns the integrated output, one line per copy of a row, doubles
// rounded (RoundRow) unless the collector is Exact, sorted.
func (c *Collector) Rows() []string {
	var out []string
	for _, e := range c.rows {
		for range e.N {
			out = append(out, e.text)
		}
	}
	slices.Sort(out)
	return out
}
