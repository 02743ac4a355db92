package exectest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
)

// Restore describes the test of a checkpointable operator that CheckRestore
// runs: an uninterrupted run of Steps, snapshotted after each step of
// Snapshots (in increasing order, so that the state of the last is the sum
// of incremental snapshots), against runs restored from the last snapshot
// at parallelism 1, 2 and 3 that continue with the remaining steps.
type Restore struct {
	// New returns a new instance of the operator, which must also be
	// exec.Stateful.
	New func() exec.Operator
	// Steps are chunks (In, on input 0) and control messages (Ctl); Want,
	// AnyOut, Err and Check are ignored.
	Steps []Step
	// Keys are the input columns the hash exchange in front of the
	// operator hashes; nil for an operator that runs as one instance.
	Keys []int
	// Snapshots are the steps after which the uninterrupted run snapshots.
	Snapshots []int
	// Options are the collectors' checks and rendering.
	Options CollectorOptions
}

// CheckRestore runs r: after the last snapshot, the restored instances,
// each restoring the key groups it owns (exec.KeyGroupsOf) and fed the
// rows of the remaining chunks the exchange routes to it and every control
// message, must emit at every step, together, the rows the uninterrupted
// run emits (as multisets), and the integral of the output before the
// snapshot and theirs after must be the uninterrupted run's. For an
// exec.DeferredSnapshotter it also checks that snapshots begun at the
// same steps and written a step at a time between the later steps of the
// input write the same entries (checkDeferred).
func CheckRestore(t *testing.T, r Restore) {
	t.Helper()
	alloc := Alloc(t)
	state := NewState()
	cut := r.Snapshots[len(r.Snapshots)-1]
	ref := NewCollector(t, r.Options)
	op := r.New()
	var refLines [][]string
	snaps := r.Snapshots
	runSteps(t, op, exec.NewTestEnv(alloc), r.Steps, ref, func(k int, lines []string) {
		refLines = append(refLines, lines)
		if len(snaps) > 0 && k == snaps[0] {
			state.Snapshot(t, op.(exec.Stateful), uint64(k))
			snaps = snaps[1:]
		}
	})
	checkDeferred(t, r, state)
	ps := []int{1, 2, 3}
	if r.Keys == nil {
		ps = ps[:1]
	}
	for _, p := range ps {
		out := NewCollector(t, r.Options)
		runSteps(t, r.New(), exec.NewTestEnv(alloc), r.Steps[:cut+1], out, nil)
		got := make([][]string, len(r.Steps))
		for i := range p {
			env := InstanceEnv(alloc, i, p, nil)
			var steps []Step
			var ks []int
			for k := cut + 1; k < len(r.Steps); k++ {
				st := Step{Ctl: r.Steps[k].Ctl}
				if st.Ctl == nil {
					text, ok := routed(t, r.Keys, r.Steps[k].In, i, p)
					if !ok {
						continue
					}
					st.In = text
				}
				steps, ks = append(steps, st), append(ks, k)
			}
			inst := Restoring(r.New(), state)
			runSteps(t, inst, env, steps, out, func(j int, lines []string) {
				got[ks[j]] = append(got[ks[j]], lines...)
			})
		}
		for k := cut + 1; k < len(r.Steps); k++ {
			want := slices.Clone(refLines[k])
			slices.Sort(want)
			slices.Sort(got[k])
			if !slices.Equal(got[k], want) {
				t.Fatalf("p=%d step %d: restored instances emitted\n%s\nuninterrupted\n%s", p, k,
					strings.Join(got[k], "\n"), strings.Join(want, "\n"))
			}
		}
		if g, w := strings.Join(out.Rows(), "\n"), strings.Join(ref.Rows(), "\n"); g != w {
			t.Fatalf("p=%d: integrated output\n%s\nuninterrupted\n%s", p, g, w)
		}
	}
}

// runSteps opens op with env, runs steps through it into out, calling
// after(k, lines) with the lines step k emitted, and closes op.
func runSteps(t *testing.T, op exec.Operator, env *exec.Env, steps []Step, out *Collector,
	after func(k int, lines []string)) {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	for k, st := range steps {
		var err error
		if st.Ctl != nil {
			err = op.OnControl(ctx, *st.Ctl, out)
		} else {
			ch := Chunk(t, env.Alloc, st.In)
			err = op.Process(ctx, 0, ch, out)
			ch.Batch.Release()
		}
		if err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
		var lines []string
		if text := out.Take(); text != "" {
			lines = strings.Split(text, "\n")
		}
		if after != nil {
			after(k, lines)
		}
	}
}

// Routed returns the chunk text of the rows of text that instance i of p
// receives through a hash exchange on the columns keys, and whether
// there is any.
func Routed(t *testing.T, keys []int, text string, i, p int) (string, bool) {
	t.Helper()
	return routed(t, keys, text, i, p)
}

// routed is Routed.
func routed(t *testing.T, keys []int, text string, i, p int) (string, bool) {
	alloc := Alloc(t)
	ch := Chunk(t, alloc, text)
	defer ch.Batch.Release()
	cols := make([]arrow.Array, len(keys))
	for c, ord := range keys {
		cols[c] = ch.Batch.Column(ord)
	}
	hashes := make([]uint64, ch.NumRows())
	if len(cols) > 0 {
		if err := exec.HashRows(cols, hashes); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	out := []string{lines[0]}
	for r, h := range hashes {
		if len(cols) == 0 || exec.InstanceForKeyGroup(exec.KeyGroup(h), p) == i {
			out = append(out, strings.TrimSpace(lines[1+r]))
		}
	}
	return strings.Join(out, "\n"), len(out) > 1
}
