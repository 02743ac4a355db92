package plan

import (
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// propsFixture builds plans over a stream bid(price, date_time, other)
// whose WATERMARK is on date_time, read as columns 1, 2 and 3.
type propsFixture struct {
	obj *catalog.Object
}

func newPropsFixture(watermark bool) propsFixture {
	ts := types.TimestampT(3)
	obj := &catalog.Object{Name: "bid", Kind: catalog.Stream, Columns: []catalog.Column{
		{Name: "price", Type: types.BigIntT}, {Name: "date_time", Type: ts}, {Name: "other", Type: ts}}}
	if watermark {
		obj.Watermark = &catalog.Watermark{Column: "date_time", DelayMs: 4000}
	}
	return propsFixture{obj: obj}
}

func (f propsFixture) scan() *Scan {
	return &Scan{Object: f.obj, Cols: ColList{1, 2, 3}, Ords: []int{0, 1, 2}}
}

// tumble is TUMBLE(bid, timeCol, INTERVAL '10' SECOND): window_start 4,
// window_end 5.
func tumble(in Node, timeCol ColumnID) *Window {
	return &Window{Input: in, Kind: Tumble, TimeCol: timeCol, Size: 10_000, Start: 4, End: 5}
}

// maxPerWindow is SELECT MAX(price) AS maxprice (7), window_end AS
// date_time (8) FROM in GROUP BY window_end, with the aggregate grouped by
// group (5 is window_end, 4 window_start) and closing on it with offset.
func maxPerWindow(in Node, group ColumnID, offset int64, emitOnClose bool) (*Aggregate, *Project) {
	ts := types.TimestampT(3)
	pre := &Project{Input: in, Items: []ProjItem{{ID: group, Expr: &ColRef{ID: group, Typ: ts}}, {ID: 1, Expr: &ColRef{ID: 1, Typ: types.BigIntT}}}}
	agg := &Aggregate{Input: pre, Group: ColList{group}, WindowClose: group, WindowCloseOffset: offset, EmitOnClose: emitOnClose,
		Aggs: []AggCall{{Func: AggMax, Arg: 1, ArgTyp: types.BigIntT, Out: 6, Typ: types.BigIntT}}}
	out := &Project{Input: agg, Items: []ProjItem{{ID: 7, Expr: &ColRef{ID: 6, Typ: types.BigIntT}}, {ID: 8, Expr: &ColRef{ID: group, Typ: ts}}}}
	return agg, out
}

// TestWindowedAggregateTimeCols checks which aggregates promise that their
// window_end follows the watermark: those grouped by window_end that close
// their windows by watermark, whether they emit running results or only
// on close; and that a projection renaming the column keeps the promise.
func TestWindowedAggregateTimeCols(t *testing.T) {
	f := newPropsFixture(true)
	agg, out := maxPerWindow(tumble(f.scan(), 2), 5, 0, false)
	if got := agg.Props().TimeCols; !got.Equals(MakeColSet(5)) {
		t.Errorf("aggregate grouped by window_end: TimeCols = %v, want (5)", got)
	}
	if agg.Props().AppendOnly {
		t.Errorf("a running windowed aggregate is append-only")
	}
	if got := out.Props().TimeCols; !got.Equals(MakeColSet(8)) {
		t.Errorf("window_end AS date_time: TimeCols = %v, want (8)", got)
	}

	// Emitting on close, the same column.
	agg, _ = maxPerWindow(tumble(f.scan(), 2), 5, 0, true)
	if got := agg.Props().TimeCols; !got.Equals(MakeColSet(5)) {
		t.Errorf("EMIT ON WINDOW CLOSE: TimeCols = %v, want (5)", got)
	}

	// Grouped by window_start, which closes at start + size: it follows
	// the watermark a window behind, renamed too.
	agg, out = maxPerWindow(tumble(f.scan(), 2), 4, 10_000, false)
	if got := out.Props().TimeCols; !got.Empty() || !agg.Props().TimeCols.Empty() {
		t.Errorf("aggregate grouped by window_start: TimeCols = %v", agg.Props().TimeCols)
	}
	if lag, ok := agg.Props().TimeLag(4); !ok || lag != 10_000 {
		t.Errorf("aggregate grouped by window_start: lag %d, %v; want 10000", lag, ok)
	}
	if lag, ok := out.Props().TimeLag(8); !ok || lag != 10_000 {
		t.Errorf("window_start AS date_time: lag %d, %v; want 10000", lag, ok)
	}

	// Without a watermark no window closes.
	agg, _ = maxPerWindow(tumble(newPropsFixture(false).scan(), 2), 5, 0, false)
	if got := agg.Props().TimeCols; !got.Empty() {
		t.Errorf("aggregate over a stream without a watermark: TimeCols = %v", got)
	}

	// Over a retracting input, a running aggregate does not close its
	// windows (a retraction may still change them), but each change of a
	// group's row is made by a change of its input in that group, which
	// the input's window_end bounds: the promise holds. Emitting on close,
	// too.
	inner, _ := maxPerWindow(tumble(f.scan(), 2), 5, 0, false)
	regroup := func(emitOnClose bool) *Aggregate {
		return &Aggregate{Input: inner, Group: ColList{5}, WindowClose: 5, EmitOnClose: emitOnClose,
			Aggs: []AggCall{{Func: AggCountStar, Out: 9, Typ: types.BigIntT}}}
	}
	if got := regroup(false).Props().TimeCols; !got.Equals(MakeColSet(5)) {
		t.Errorf("running aggregate over a retracting input: TimeCols = %v, want (5)", got)
	}
	if got := regroup(true).Props().TimeCols; !got.Equals(MakeColSet(5)) {
		t.Errorf("EMIT ON WINDOW CLOSE over a retracting input: TimeCols = %v, want (5)", got)
	}
	// A column of the input that follows no watermark makes no promise.
	other := &Aggregate{Input: inner, Group: ColList{6}, Aggs: []AggCall{{Func: AggCountStar, Out: 9, Typ: types.BigIntT}}}
	if p := other.Props(); !p.TimeCols.Empty() || len(p.TimeLags) != 0 {
		t.Errorf("grouped by an aggregate's result: TimeCols = %v, TimeLags = %v", p.TimeCols, p.TimeLags)
	}
}

// TestWindowStartFollowsTheWatermarkAWindowBehind checks the lags of
// window_start: a window's start is within its size before the row's
// time, for TUMBLE, HOP and CUMULATE alike, and a running aggregate over
// a retracting input grouped by such a column keeps its lag.
func TestWindowStartFollowsTheWatermarkAWindowBehind(t *testing.T) {
	f := newPropsFixture(true)
	for _, w := range []*Window{
		tumble(f.scan(), 2),
		{Input: f.scan(), Kind: Hop, TimeCol: 2, Size: 10_000, Slide: 2_000, Start: 4, End: 5},
		{Input: f.scan(), Kind: Cumulate, TimeCol: 2, Size: 10_000, Slide: 2_000, Start: 4, End: 5},
	} {
		p := w.Props()
		if lag, ok := p.TimeLag(4); !ok || lag != 10_000 {
			t.Errorf("%s: window_start lag %d, %v; want 10000", w.Kind, lag, ok)
		}
		if lag, ok := p.TimeLag(5); !ok || lag != 0 || !p.TimeCols.Contains(5) {
			t.Errorf("%s: window_end lag %d, %v; want a time column", w.Kind, lag, ok)
		}
	}
	if _, ok := tumble(f.scan(), 3).Props().TimeLag(4); ok {
		t.Errorf("TUMBLE over a column without a watermark: window_start follows it")
	}
	counts, _ := maxPerWindow(tumble(f.scan(), 2), 4, 10_000, false)
	regroup := &Aggregate{Input: counts, Group: ColList{4}, Aggs: []AggCall{{Func: AggMax, Arg: 6, ArgTyp: types.BigIntT, Out: 9, Typ: types.BigIntT}}}
	if lag, ok := regroup.Props().TimeLag(4); !ok || lag != 10_000 {
		t.Errorf("MAX over the counts, grouped by window_start: lag %d, %v; want 10000", lag, ok)
	}
}

// TestProjectKeepsRenamedTimeCols checks that a projection keeps a time
// column passed through or renamed, and not one computed from it.
func TestProjectKeepsRenamedTimeCols(t *testing.T) {
	ts := types.TimestampT(3)
	f := newPropsFixture(true)
	p := &Project{Input: f.scan(), Items: []ProjItem{
		{ID: 2, Expr: &ColRef{ID: 2, Typ: ts}},
		{ID: 10, Expr: &ColRef{ID: 2, Typ: ts}},
		{ID: 11, Expr: &Binary{Op: OpSub, L: &ColRef{ID: 2, Typ: ts}, R: &Const{Val: types.IntDatum(1000), Typ: types.IntervalT}, Typ: ts}},
		{ID: 12, Expr: &ColRef{ID: 3, Typ: ts}},
	}}
	if got := p.Props().TimeCols; !got.Equals(MakeColSet(2, 10)) {
		t.Errorf("TimeCols = %v, want (2,10)", got)
	}
	c := &Calc{Input: f.scan(), Items: p.Items}
	if got := c.Props().TimeCols; !got.Equals(MakeColSet(2, 10)) {
		t.Errorf("Calc: TimeCols = %v, want (2,10)", got)
	}
}

// TestWindowEndFollowsOnlyTheWatermarkColumn checks that window_end is a
// time column only for windows over one: windows over another TIMESTAMP
// column end whenever its values say, however far the watermark is.
func TestWindowEndFollowsOnlyTheWatermarkColumn(t *testing.T) {
	f := newPropsFixture(true)
	if got := tumble(f.scan(), 2).Props().TimeCols; !got.Equals(MakeColSet(2, 5)) {
		t.Errorf("TUMBLE over date_time: TimeCols = %v, want (2,5)", got)
	}
	if got := tumble(f.scan(), 3).Props().TimeCols; !got.Equals(MakeColSet(2)) {
		t.Errorf("TUMBLE over other: TimeCols = %v, want (2)", got)
	}
}

// TestTemporalFilterHasNoTimeCols checks that a temporal filter, which
// retracts rows as processing time passes them whatever their event time,
// promises no time column.
func TestTemporalFilterHasNoTimeCols(t *testing.T) {
	f := newPropsFixture(true)
	tf := &TemporalFilter{Input: f.scan(), Col: 2, Offset: -60_000, NowUnit: 1}
	if got := tf.Props().TimeCols; !got.Empty() {
		t.Errorf("TimeCols = %v, want none", got)
	}
}
