package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/mview"
	"github.com/eddysql/eddy/sql"
)

// analyzeStats runs ANALYZE name: it reads what a stream or table holds now
// — an INSERT-fed stream's log (a derived stream's too), a table's latest
// row per key, a file to its end, a nexmark generator with a number of
// events — once, through the same snapshot query `SELECT * FROM name` a
// pull query would run (so late rows a WATERMARK drops are not counted,
// as no query sees them), and stores the statistics in the catalog with
// Source "analyze": the row count, the average row width and, per column,
// the distinct count with its sketch and the null fraction. An observed
// input rate survives, except for a bounded source, whose rate is 0
// (unknown): it is read, not fed.
//
// It returns one row: name VARCHAR, rows BIGINT, row_bytes DOUBLE (the
// average Arrow bytes per row). The per-column figures show in DESCRIBE.
//
// Views and sinks have no statistics of their own (ANALYZE needs a stream
// or table), and an unbounded source (an unbounded nexmark generator, a
// followed file) cannot be read to an end: its statistics are collected as
// queries read it.
func (s *Session) analyzeStats(ctx context.Context, st *sql.Analyze) (*Result, error) {
	e := s.eng
	obj, ok := e.cat.Get(st.Name.Name)
	if !ok {
		return nil, bindErr(st.Name.Pos, st.Source(), "unknown stream or table '%s'", st.Name.Name)
	}
	if obj.Kind != catalog.Stream && obj.Kind != catalog.Table {
		return nil, bindErr(st.Name.Pos, st.Source(), "ANALYZE needs a stream or table: '%s' is a %s", obj.Name, obj.Kind)
	}
	if obj.Connector() != "" && !obj.Traits.Bounded {
		return nil, bindErr(st.Name.Pos, st.Source(),
			"cannot ANALYZE '%s': it is unbounded; its statistics are collected as queries read it", obj.Name)
	}
	b, err := s.readForStats(ctx, obj)
	if err != nil {
		return nil, fmt.Errorf("ANALYZE %s: %w", obj.Name, err)
	}
	fresh, err := b.Stats(catalog.StatsAnalyze, time.Now())
	if err != nil {
		return nil, fmt.Errorf("ANALYZE %s: %w", obj.Name, err)
	}
	bounded := obj.Traits.Bounded
	err = e.cat.UpdateStats(obj.Name, obj.ID, func(old catalog.Stats, had bool) catalog.Stats {
		if had && !bounded {
			fresh.RowsPerSec = old.RowsPerSec
		}
		return fresh
	})
	if err != nil {
		return nil, fmt.Errorf("ANALYZE %s: %w", obj.Name, err)
	}
	cols := []Column{{Name: "name", Type: types.VarcharT}, {Name: "rows", Type: types.BigIntT}, {Name: "row_bytes", Type: types.DoubleT}}
	row := []types.Datum{types.StringDatum(obj.Name), types.IntDatum(fresh.Rows), types.FloatDatum(fresh.RowBytes)}
	return &Result{Kind: ResultRows, Tag: "ANALYZE", Columns: cols, Rows: [][]types.Datum{row}}, nil
}

// readForStats runs the snapshot query over obj and feeds its rows to a
// statistics builder.
func (s *Session) readForStats(ctx context.Context, obj *catalog.Object) (*catalog.StatsBuilder, error) {
	e := s.eng
	text := "SELECT * FROM `" + strings.ReplaceAll(obj.Name, "`", "``") + "`"
	stmt, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return nil, err
	}
	sel, ok := stmt.(*sql.Select)
	if !ok {
		return nil, fmt.Errorf("internal error: %q is not a SELECT", text)
	}
	cq, err := e.planQuery(sel.Query, sel.Source(), sel.Start, snapshot, s.settings())
	if err != nil {
		return nil, err
	}
	if len(cq.types()) != len(obj.Columns) {
		return nil, fmt.Errorf("internal error: SELECT * returned %d columns of %d", len(cq.types()), len(obj.Columns))
	}
	sink := &statsSink{builder: catalog.NewStatsBuilder(obj.Columns), schema: obj.Schema(), types: obj.Types()}
	if !cq.logical.Props().AppendOnly {
		// A table's snapshot is its changelog: integrate it, then count
		// the rows that remain.
		sink.mv = mview.New(cq.names(), cq.types(), nil)
	}
	if err := e.readToEnd(ctx, cq, "analyze", "Analyze", sink); err != nil {
		return nil, err
	}
	if sink.mv != nil {
		if err := sink.addRows(e, sink.mv.Snapshot()); err != nil {
			return nil, err
		}
	}
	return sink.builder, nil
}

// statsSink is the sink of ANALYZE's read: append-only batches go to the
// builder as they come; changes are integrated in mv first.
type statsSink struct {
	mu      sync.Mutex // the sink's stage runs one instance, but be safe
	builder *catalog.StatsBuilder
	schema  *arrow.Schema
	types   []types.T
	mv      *mview.View
}

func (k *statsSink) Open(ctx context.Context, env *exec.Env) error { return nil }

func (k *statsSink) Process(ctx context.Context, in int, ch exec.Chunk, out exec.Emitter) error {
	if k.mv != nil {
		return k.mv.Apply(ctx, ch)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if ch.Ops != nil {
		return fmt.Errorf("internal error: an append-only read delivered changes")
	}
	// The batch carries the query's column names; the builder reads
	// columns by position.
	return k.builder.Add(ch.Batch)
}

func (k *statsSink) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	return nil
}

func (k *statsSink) Close() error { return nil }

// statsBatchRows is how many integrated rows go into one batch for the
// builder: large enough to amortize per-batch work, small enough not to
// double a big table's memory at once.
const statsBatchRows = 4096

// addRows feeds integrated rows to the builder in batches.
func (k *statsSink) addRows(e *Engine, rows [][]types.Datum) error {
	fields := k.schema.Fields()
	for lo := 0; lo < len(rows); lo += statsBatchRows {
		hi := min(lo+statsBatchRows, len(rows))
		cols := make([]arrow.Array, len(fields))
		col := make([]types.Datum, hi-lo)
		for c := range fields {
			for r := lo; r < hi; r++ {
				col[r-lo] = rows[r][c]
			}
			cols[c] = types.BuildArray(e.alloc, k.types[c], col)
		}
		rec := array.NewRecordBatch(k.schema, cols, int64(hi-lo))
		for _, a := range cols {
			a.Release()
		}
		err := k.builder.Add(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// columnStatsRow returns DESCRIBE's distinct (rounded to an integer) and
// null_frac of a column, NULL where the statistics do not know them.
func columnStatsRow(st catalog.Stats, column string) []types.Datum {
	c, ok := st.Column(column)
	if !ok {
		return []types.Datum{types.NullDatum, types.NullDatum}
	}
	return []types.Datum{types.IntDatum(int64(math.Round(c.Distinct))), types.FloatDatum(c.NullFrac)}
}
