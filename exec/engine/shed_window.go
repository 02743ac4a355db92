package engine

import (
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// shed = 'window' (dataflow/shed_window.go) drops whole TUMBLE windows at
// the query's source, so that every window the query emits is exact. It
// holds for a query shaped
//
//	[Calc | Exchange]* HashAggregate (grouped by the window's window_start
//	or window_end) [LocalAggregate | Calc | Exchange]* WindowAssign TUMBLE
//	[Calc | Exchange]* Source
//
// reading one source, whose window time column is a column of that source
// passed unchanged (filters may drop rows on the way: a window's kept rows
// are all its rows, so whatever a filter keeps of them is exact too). The
// source drops a row when its window is dropped, so the aggregation never
// sees a dropped window and sees every row of a kept one. Anything between
// the source and the aggregation that lets one window's rows change
// another's (a join, a de-duplication, another aggregation) would break
// that, as would HOP and CUMULATE windows, where a row belongs to several
// windows: they are refused.

// shedWindowError says why a query cannot shed whole windows; the engine
// reports it at the shed option's value (shedErrorAt).
type shedWindowError struct {
	msg string
	// feature, when set, makes it a "not supported yet" error about it.
	feature string
}

func (e *shedWindowError) Error() string {
	if e.feature != "" {
		return "not supported yet: " + e.feature
	}
	return e.msg
}

// shedErrorAt reports err, if it is a shedWindowError, at the value of the
// shed option among with (in src); other errors are returned as they are.
func shedErrorAt(err error, with []sql.Option, src *sql.Source) error {
	var se *shedWindowError
	if !errors.As(err, &se) {
		return err
	}
	pos := sql.Pos{}
	for _, o := range with {
		if o.Key == optShed {
			pos = o.ValuePos
		}
	}
	if se.feature != "" {
		return &planner.NotSupportedError{Feature: se.feature, Pos: pos, Line: src.Line(pos)}
	}
	return bindErr(pos, src, "%s", se.msg)
}

// windowShed finds, in the physical plan root of a query that sheds whole
// windows, the source that sheds and its window: the runtime's spec, or a
// shedWindowError saying what the query lacks.
func windowShed(root physical.Node) (*dataflow.WindowShed, error) {
	const need = "shed = 'window' needs a query that aggregates TUMBLE windows of one stream, grouped by window_start or window_end"
	if n := countLeaves(root); n != 1 {
		return nil, &shedWindowError{msg: fmt.Sprintf("%s; this one reads %d inputs", need, n)}
	}
	n := root
	for {
		if c, ok := n.(*physical.Calc); ok {
			n = c.Inputs[0]
		} else if x, ok := n.(*physical.Exchange); ok {
			n = x.Inputs[0]
		} else {
			break
		}
	}
	if _, ok := n.(*physical.SessionAgg); ok {
		return nil, &shedWindowError{feature: "shed = 'window' over SESSION windows; it drops whole TUMBLE windows"}
	}
	agg, ok := n.(*physical.HashAgg)
	if !ok {
		return nil, &shedWindowError{msg: fmt.Sprintf("%s; its result comes from %s", need, opName(n))}
	}
	// Follow the group keys down to the window.
	keys := append([]int(nil), agg.GroupKeys...)
	n = agg.Inputs[0]
	for {
		var next []int
		switch x := n.(type) {
		case *physical.Exchange:
			n = x.Inputs[0]
			continue
		case *physical.LocalAgg:
			for _, k := range keys {
				if k < len(x.GroupKeys) {
					next = append(next, x.GroupKeys[k])
				}
			}
		case *physical.Calc:
			for _, k := range keys {
				if r, ok := x.Projs[k].(*plan.InputRef); ok {
					next = append(next, r.Ord)
				}
			}
		case *physical.WindowAssign:
			return windowOf(x, keys, need)
		default:
			return nil, &shedWindowError{msg: fmt.Sprintf("%s; found %s between the aggregation and its window", need, opName(n))}
		}
		keys, n = next, n.Hdr().Inputs[0]
	}
}

// windowOf checks the window w that the aggregation above groups by (its
// keys, as ordinals of w's output), and follows its time column down to the
// source.
func windowOf(w *physical.WindowAssign, keys []int, need string) (*dataflow.WindowShed, error) {
	switch w.Kind {
	case plan.Tumble:
	case plan.Hop, plan.Cumulate:
		return nil, &shedWindowError{feature: fmt.Sprintf("shed = 'window' over %s windows, where a row belongs to several windows; it drops whole TUMBLE windows", w.Kind)}
	}
	start := len(w.Inputs[0].Hdr().Cols) // window_start, then window_end
	grouped := false
	for _, k := range keys {
		grouped = grouped || k == start || k == start+1
	}
	if !grouped {
		return nil, &shedWindowError{msg: need + "; this one does not group by the window"}
	}
	col := w.TimeCol
	name := w.Inputs[0].Hdr().Cols[col].Name
	for n := w.Inputs[0]; ; {
		switch x := n.(type) {
		case *physical.Exchange:
			n = x.Inputs[0]
		case *physical.Calc:
			r, ok := x.Projs[col].(*plan.InputRef)
			if !ok {
				return nil, &shedWindowError{msg: fmt.Sprintf("shed = 'window' needs the window's time column to be a column of the stream, passed unchanged; %s is computed (%s)", name, x.Projs[col])}
			}
			col, n = r.Ord, x.Inputs[0]
		case *physical.Source:
			return &dataflow.WindowShed{SourceNodeID: x.ID, TimeCol: col, Size: w.Size}, nil
		default:
			return nil, &shedWindowError{msg: fmt.Sprintf("%s; found %s between the window and its stream", need, opName(n))}
		}
	}
}

// countLeaves returns the number of sources and constant inputs under n.
func countLeaves(n physical.Node) int {
	in := n.Hdr().Inputs
	if len(in) == 0 {
		return 1
	}
	total := 0
	for _, c := range in {
		total += countLeaves(c)
	}
	return total
}

// opName is a physical operator's name as EXPLAIN prints it, for errors.
func opName(n physical.Node) string {
	op, _ := n.Describe()
	return op
}
