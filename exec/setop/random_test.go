package setop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// The random test's rows: (BIGINT, VARCHAR, DOUBLE) from small domains,
// NULLs included, so that rows repeat on both sides.
var randTypes = []types.T{types.BigIntT, types.VarcharT, types.DoubleT}

// randRow returns a random row.
func randRow(r *rand.Rand) []types.Datum {
	row := []types.Datum{types.IntDatum(r.Int64N(3)), types.StringDatum([]string{"a", "b"}[r.IntN(2)]), types.FloatDatum([]float64{0, 1.5}[r.IntN(2)])}
	for i := range row {
		if r.IntN(6) == 0 {
			row[i] = types.NullDatum
		}
	}
	return row
}

// cluster is the instances of an operator at a parallelism, fed as a hash
// exchange on all columns feeds them, into one collector.
type cluster struct {
	kind  Kind
	alloc memory.Allocator
	ops   []*Operator
	out   *exectest.Collector
}

// open opens p instances, restoring each from state if it is not nil.
func (c *cluster) open(t *testing.T, p int, state *exectest.State) {
	t.Helper()
	for _, op := range c.ops {
		op.Close()
	}
	c.ops = nil
	for i := range p {
		op, err := New(Config{Kind: c.kind, Types: randTypes, Names: []string{"x", "s", "f"}})
		if err != nil {
			t.Fatal(err)
		}
		env := exectest.InstanceEnv(c.alloc, i, p, nil)
		if state != nil {
			exectest.Open(t, exectest.Restoring(op, state), env)
		} else {
			exectest.Open(t, op, env)
		}
		c.ops = append(c.ops, op)
	}
}

// feed routes the changes rows/ops of input in to the instances.
func (c *cluster) feed(t *testing.T, in int, rows [][]types.Datum, ops []exec.Op) {
	t.Helper()
	rec := types.BuildRecord(c.alloc, []string{"x", "s", "f"}, randTypes, rows)
	defer rec.Release()
	hashes := make([]uint64, len(rows))
	if err := exec.HashRows(rec.Columns(), hashes); err != nil {
		t.Fatal(err)
	}
	p := len(c.ops)
	for i, op := range c.ops {
		var sel []int32
		for r, h := range hashes {
			if exec.InstanceForKeyGroup(exec.KeyGroup(h), p) == i {
				sel = append(sel, int32(r))
			}
		}
		if len(sel) == 0 {
			continue
		}
		part, err := exec.TakeRows(c.alloc, exec.Chunk{Batch: rec, Ops: ops}, sel)
		if err != nil {
			t.Fatal(err)
		}
		err = op.Process(t.Context(), in, part, c.out)
		part.Batch.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot has every instance write its changes since the last snapshot.
func (c *cluster) snapshot(t *testing.T, state *exectest.State, epoch uint64) {
	t.Helper()
	state.Reset()
	for _, op := range c.ops {
		if err := op.Snapshot(t.Context(), epoch, state); err != nil {
			t.Fatal(err)
		}
	}
}

// oracle computes the result by brute force from the integrals of the two
// inputs, rendered as the collector renders its rows.
func oracle(kind Kind, left, right *exectest.Integral) []string {
	type pair struct {
		row  []types.Datum
		a, b int64
	}
	counts := map[string]*pair{}
	for side, in := range []*exectest.Integral{left, right} {
		for _, c := range in.Counted() {
			k := exectest.Key(c.Row)
			p := counts[k]
			if p == nil {
				p = &pair{row: c.Row}
				counts[k] = p
			}
			if side == 0 {
				p.a = c.N
			} else {
				p.b = c.N
			}
		}
	}
	var out []string
	for _, p := range counts {
		for range kind.Mult(p.a, p.b) {
			out = append(out, exectest.RoundRow(p.row, randTypes, exectest.Text))
		}
	}
	slices.Sort(out)
	return out
}

// TestRandom feeds random changelogs — inserts, deletes and updates of rows
// each input holds — to both inputs of each operation at parallelism 1 to
// 3, snapshotting incrementally at random steps and now and then
// restoring from the snapshots at another parallelism, and compares the
// integral of the output with the brute-force result after every step.
func TestRandom(t *testing.T) {
	for _, kind := range []Kind{Intersect, IntersectAll, Except, ExceptAll} {
		for p := 1; p <= 3; p++ {
			for seed := range uint64(4) {
				t.Run(fmt.Sprintf("%s/p%d/seed%d", strings.ReplaceAll(kind.String(), " ", "_"), p, seed), func(t *testing.T) {
					testRandom(t, kind, p, seed)
				})
			}
		}
	}
}

func testRandom(t *testing.T, kind Kind, p int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(p)*10+uint64(kind)))
	alloc := exectest.Alloc(t)
	c := &cluster{kind: kind, alloc: alloc, out: exectest.NewCollector(t, exectest.CollectorOptions{})}
	c.open(t, p, nil)
	ins := []*exectest.Integral{exectest.NewIntegral(randTypes), exectest.NewIntegral(randTypes)}
	held := [2][][]types.Datum{} // the rows each input holds, a row held n times n times
	state := exectest.NewState()
	restores := 0
	for step := range 200 {
		in := r.IntN(2)
		var rows [][]types.Datum
		var ops []exec.Op
		for range 1 + r.IntN(8) {
			h := held[in]
			switch k := r.IntN(10); {
			case k < 3 && len(h) > 0:
				i := r.IntN(len(h))
				rows, ops = append(rows, h[i]), append(ops, exec.Delete)
				held[in] = slices.Delete(h, i, i+1)
			case k < 5 && len(h) > 0:
				i := r.IntN(len(h))
				nr := randRow(r)
				rows, ops = append(rows, h[i], nr), append(ops, exec.UpdateBefore, exec.UpdateAfter)
				h[i] = nr
			default:
				nr := randRow(r)
				rows, ops = append(rows, nr), append(ops, exec.Insert)
				held[in] = append(h, nr)
			}
		}
		rec := types.BuildRecord(alloc, []string{"x", "s", "f"}, randTypes, rows)
		ins[in].Add(exec.Chunk{Batch: rec, Ops: ops})
		rec.Release()
		c.feed(t, in, rows, ops)
		if got, want := strings.Join(c.out.Rows(), "\n"), strings.Join(oracle(kind, ins[0], ins[1]), "\n"); got != want {
			t.Fatalf("step %d: output\n%s\nbrute force\n%s", step, got, want)
		}
		if r.IntN(10) == 0 {
			c.snapshot(t, state, uint64(step+1))
			if r.IntN(2) == 0 {
				restores++
				c.open(t, 1+r.IntN(3), state)
			}
		}
	}
	if restores == 0 {
		t.Logf("no restore in this run")
	}
}
