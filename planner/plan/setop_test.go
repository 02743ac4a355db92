package plan

import "testing"

// TestSetOpProps checks the streaming properties of INTERSECT and EXCEPT:
// INTERSECT of inputs that only insert only inserts, EXCEPT retracts
// rows, and the DISTINCT forms are keyed by all their columns.
func TestSetOpProps(t *testing.T) {
	f := newPropsFixture(false)
	for _, tc := range []struct {
		kind                 SetOpKind
		all                  bool
		appendOnly, distinct bool
	}{
		{Intersect, false, true, true},
		{Intersect, true, true, false},
		{Except, false, false, true},
		{Except, true, false, false},
	} {
		n := &SetOp{Kind: tc.kind, All: tc.all, Left: f.scan(), Right: f.scan(),
			LeftCols: ColList{1, 2}, RightCols: ColList{1, 2}, Cols: ColList{9, 10}}
		p := n.Props()
		if p.AppendOnly != tc.appendOnly {
			t.Errorf("%s all=%v: append-only %v, want %v", tc.kind, tc.all, p.AppendOnly, tc.appendOnly)
		}
		if keyed := len(p.Keys) == 1 && p.Keys[0].Equals(MakeColSet(9, 10)); keyed != tc.distinct {
			t.Errorf("%s all=%v: keys %v, want keyed by all columns: %v", tc.kind, tc.all, p.Keys, tc.distinct)
		}
		if w := n.WithInputs(f.scan(), f.scan()).(*SetOp); w.Kind != tc.kind || w.All != tc.all || len(w.Cols) != 2 {
			t.Errorf("WithInputs lost the operation: %+v", w)
		}
	}
}
