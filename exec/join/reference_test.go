package join

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// rig runs a HashJoin in a randomized test: it feeds rows to either input,
// integrates each input for the oracle, and collects the output.
type rig struct {
	t      *testing.T
	j      *HashJoin
	env    *exec.Env
	out    *exectest.Collector
	emit   exec.Emitter
	names  []string              // the inputs' column names
	inputs [2]*exectest.Integral // what each input holds
	format exectest.Format
}

// newRig opens a join whose inputs' columns are named names; the test
// closes it and checks that it leaked no Arrow buffer. The output renders
// timestamps in format, and appendOnly makes an output chunk that retracts
// fail the test.
func newRig(t *testing.T, cfg Config, names []string, format exectest.Format, appendOnly bool) *rig {
	alloc := exectest.Alloc(t)
	r := &rig{t: t, j: NewHashJoin(cfg), env: exec.NewTestEnv(alloc), names: names, format: format,
		out:    exectest.NewCollector(t, exectest.CollectorOptions{Format: format}),
		inputs: [2]*exectest.Integral{exectest.NewIntegral(cfg.Left), exectest.NewIntegral(cfg.Right)}}
	r.emit = r.out
	if appendOnly {
		r.emit = exec.EmitterFunc(func(ctx context.Context, c exec.Chunk) error {
			if !c.AppendOnly() {
				t.Fatalf("a windowed join retracted: %v", c.Ops)
			}
			return r.out.Emit(ctx, c)
		})
	}
	if err := r.j.Open(context.Background(), r.env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.j.Close() })
	return r
}

// send feeds rows, with ops (nil: inserts), to input in.
func (r *rig) send(in int, rows [][]types.Datum, ops []exec.Op) error {
	ts := r.inputs[in].Types
	c := exec.Chunk{Batch: types.BuildRecord(r.env.Alloc, r.names, ts, rows), Ops: ops}
	defer c.Batch.Release()
	r.inputs[in].Add(c)
	return r.j.Process(context.Background(), in, c, r.emit)
}

// control sends a control message.
func (r *rig) control(m exec.Control) error {
	return r.j.OnControl(context.Background(), m, r.emit)
}

// check fails the test unless the integrated output is the reference join
// of what the inputs hold.
func (r *rig) check(what string, match func(left, right []types.Datum) bool) {
	r.t.Helper()
	got := strings.Join(r.out.Rows(), "\n")
	want := strings.Join(referenceJoin(r.j.cfg.Kind, r.inputs[0], r.inputs[1], match, r.format), "\n")
	if got != want {
		r.t.Fatalf("%s: integrated output\n%s\nbrute force\n%s", what, got, want)
	}
}

// held is the number of rows the join holds, by its state gauge.
func (r *rig) held() int64 { return r.env.Metrics.StateKeys.Load() }

// referenceJoin computes the join of kind the slow way from what its
// inputs hold: every pair of rows that match, then the kind's padding, or
// for a semi (anti) join the left rows with (without) a match. Its rows are
// rendered as a Collector renders its integral, sorted.
func referenceJoin(kind plan.JoinKind, left, right *exectest.Integral, match func(l, r []types.Datum) bool, f exectest.Format) []string {
	semi := kind == plan.SemiJoin || kind == plan.AntiJoin
	// A row is rendered as its left part, then its right part unless the
	// join is a semi join; each input row is rendered once.
	render := func(in *exectest.Integral, rows [][]types.Datum) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = exectest.RoundRow(r, in.Types, f)
		}
		return out
	}
	lrows, rrows := left.Rows(), right.Rows()
	ltext, rtext := render(left, lrows), render(right, rrows)
	lnull := exectest.FormatRow(nulls(len(left.Types)), left.Types, f)
	rnull := exectest.FormatRow(nulls(len(right.Types)), right.Types, f)
	var out []string
	rightMatched := make([]bool, len(rrows))
	for li, l := range lrows {
		n := 0
		for ri, r := range rrows {
			if match(l, r) {
				n++
				rightMatched[ri] = true
				if !semi {
					out = append(out, ltext[li]+" "+rtext[ri])
				}
			}
		}
		switch {
		case semi && (kind == plan.SemiJoin) == (n > 0):
			out = append(out, ltext[li])
		case !semi && n == 0 && kind.PreservesLeft():
			out = append(out, ltext[li]+" "+rnull)
		}
	}
	if kind.PreservesRight() {
		for ri := range rrows {
			if !rightMatched[ri] {
				out = append(out, lnull+" "+rtext[ri])
			}
		}
	}
	slices.Sort(out)
	return out
}

// nulls returns a row of n NULLs.
func nulls(n int) []types.Datum {
	row := make([]types.Datum, n)
	for i := range row {
		row[i] = types.NullDatum
	}
	return row
}

// keysMatch says whether two rows' first columns, their join keys, are
// equal and not NULL.
func keysMatch(l, r []types.Datum) bool { return !l[0].Null && !r[0].Null && l[0].I == r[0].I }
