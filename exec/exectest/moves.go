package exectest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// Moves describes the test of an exec.GroupMover that CheckMoves runs: two
// fleets of instances of the operator, fed the same steps, change
// parallelism at checkpoints — one by AdoptGroups (each new instance
// takes over the old instance exec.MatchInstances pairs it with and reads only
// the key groups it gains), the other by a full Restore of each new
// instance's key groups.
type Moves struct {
	// New returns a new instance of the operator, which must be an
	// exec.GroupMover.
	New func() exec.Operator
	// Steps are chunks (In, on input Input) and control messages (Ctl);
	// Want, AnyOut, Err and Check are ignored.
	Steps []Step
	// Keys are, by input, the columns the hash exchange in front of the
	// operator hashes.
	Keys [][]int
	// Parallelism is the sequence of parallelisms the fleets run at, each
	// for an equal share of the steps (the last one takes the rest).
	Parallelism []int
	// Dump, if not nil, renders the state of an instance: every entry it
	// holds and whatever its next snapshot or its output depends on. It
	// should fail t when the instance holds something of a key group it
	// does not own.
	Dump func(t *testing.T, op exec.Operator) string
	// Fallback, if not nil, says whether the operator must refuse an
	// instance (AdoptGroups reporting false, then restored in full); nil
	// means it must adopt every one.
	Fallback func(op exec.Operator) bool
	// Clock, if not nil, is every instance's processing-time clock, and
	// Before, if not nil, is called before step k runs (to move it on).
	Clock  func() time.Time
	Before func(k int)
	// Options are the collectors' checks and rendering.
	Options CollectorOptions
}

// Moved counts what CheckMoves read from the store: the entries and the
// bytes (keys and values) the adopting fleet read, and the ones the fleet
// that restores in full read.
type Moved struct {
	Entries, Bytes            int
	RestoredEntries, Restored int
	Adopted, Fallbacks        int // instances that adopted, and that fell back
}

// CheckMoves runs m. After every move each adopting instance must have
// read exactly the key groups it gained (exec.KeyGroupRange.Minus of the
// groups its old instance held), and hold what its twin of the other
// fleet holds (Dump); at every step the two fleets must emit the same
// rows (as multisets); and at every checkpoint, and once more after the
// last step, each instance's snapshot must write exactly what its twin's
// writes (the same puts and deletes, so an adopting instance writes no
// deletion of a group it dropped).
func CheckMoves(t *testing.T, m Moves) Moved {
	t.Helper()
	ctx := context.Background()
	alloc := Alloc(t)
	type fleet struct {
		ops   []exec.Operator
		state *State
		out   *Collector
	}
	moved := &fleet{state: NewState(), out: NewCollector(t, m.Options)}
	restored := &fleet{state: NewState(), out: NewCollector(t, m.Options)}
	defer func() {
		for _, f := range []*fleet{moved, restored} {
			for _, op := range f.ops {
				if op != nil {
					op.Close()
				}
			}
		}
	}()
	open := func(i, p int) exec.Operator {
		op := m.New()
		if err := op.Open(ctx, InstanceEnv(alloc, i, p, m.Clock)); err != nil {
			t.Fatal(err)
		}
		return op
	}
	// checkpoint has both fleets snapshot, each instance into a writer
	// that records what it writes, and compares the twins' writes.
	checkpoint := func(epoch int) {
		t.Helper()
		writes := make([][][]string, 2)
		for f, fl := range []*fleet{moved, restored} {
			fl.state.Reset()
			for _, op := range fl.ops {
				w := &recorder{State: fl.state}
				if err := op.(exec.Stateful).Snapshot(ctx, uint64(epoch), w); err != nil {
					t.Fatal(err)
				}
				slices.Sort(w.ops)
				writes[f] = append(writes[f], w.ops)
			}
		}
		for i := range writes[0] {
			if g, w := strings.Join(writes[0][i], "\n"), strings.Join(writes[1][i], "\n"); g != w {
				t.Fatalf("checkpoint %d: adopting instance %d of %d wrote\n%s\nits restored twin\n%s", epoch, i, len(writes[0]), g, w)
			}
		}
		if d := moved.state.Diff(restored.state); d != "" {
			t.Fatalf("checkpoint %d: the fleets' checkpoints differ: %s", epoch, d)
		}
	}
	var n Moved
	per := len(m.Steps) / len(m.Parallelism)
	for phase, p := range m.Parallelism {
		if phase == 0 {
			moved.ops, restored.ops = []exec.Operator{open(0, p)}, []exec.Operator{open(0, p)}
		} else {
			checkpoint(phase)
			from := len(moved.ops)
			match := exec.MatchInstances(from, p)
			var ops, twins []exec.Operator
			for i := range p {
				op, twin := open(i, p), open(i, p)
				groups := exec.KeyGroupsOf(i, p)
				full := &groupsRead{StateReader: restored.state}
				if err := twin.(exec.Stateful).Restore(ctx, full, groups); err != nil {
					t.Fatal(err)
				}
				n.RestoredEntries, n.Restored = n.RestoredEntries+full.entries, n.Restored+full.bytes
				read := &groupsRead{StateReader: moved.state}
				var held exec.KeyGroupRange
				adopted := false
				if o := match[i]; o >= 0 {
					held = exec.KeyGroupsOf(o, from)
					ok, err := op.(exec.GroupMover).AdoptGroups(ctx, moved.ops[o], held, read)
					if err != nil {
						t.Fatalf("phase %d: instance %d adopting %d: %v", phase, i, o, err)
					}
					if want := m.Fallback == nil || !m.Fallback(moved.ops[o]); ok != want {
						t.Fatalf("phase %d: instance %d adopting %d reported %v", phase, i, o, ok)
					}
					if err := moved.ops[o].Close(); err != nil {
						t.Fatal(err)
					}
					moved.ops[o], adopted = nil, ok
				}
				want := []exec.KeyGroupRange{groups}
				if adopted {
					n.Adopted++
					want = groups.Minus(held)
				} else {
					if match[i] >= 0 {
						n.Fallbacks++
					}
					if len(read.ranges) != 0 {
						t.Fatalf("phase %d: instance %d read %v and then refused", phase, i, read.ranges)
					}
					if err := op.(exec.Stateful).Restore(ctx, read, groups); err != nil {
						t.Fatal(err)
					}
				}
				n.Entries, n.Bytes = n.Entries+read.entries, n.Bytes+read.bytes
				if !slices.Equal(read.ranges, want) && !(len(read.ranges) == 0 && len(want) == 0) {
					t.Fatalf("phase %d: instance %d (held %v) read %v, want %v", phase, i, held, read.ranges, want)
				}
				if m.Dump != nil {
					if g, w := m.Dump(t, op), m.Dump(t, twin); g != w {
						t.Fatalf("phase %d (%d → %d): instance %d holds\n%s\nafter a full restore\n%s", phase, from, p, i, g, w)
					}
				}
				ops, twins = append(ops, op), append(twins, twin)
			}
			for _, f := range []*fleet{moved, restored} {
				for _, op := range f.ops {
					if op != nil {
						op.Close()
					}
				}
			}
			moved.ops, restored.ops = ops, twins
		}
		end := (phase + 1) * per
		if phase == len(m.Parallelism)-1 {
			end = len(m.Steps)
		}
		for k := phase * per; k < end; k++ {
			if m.Before != nil {
				m.Before(k)
			}
			for _, f := range []*fleet{moved, restored} {
				runRouted(t, f.ops, m.Keys, m.Steps[k], f.out)
			}
			if g, w := sortedLines(moved.out.Take()), sortedLines(restored.out.Take()); g != w {
				t.Fatalf("step %d at parallelism %d: adopting instances emitted\n%s\nrestored ones\n%s", k, p, g, w)
			}
		}
	}
	checkpoint(len(m.Parallelism))
	t.Logf("moves read %d entries (%d bytes), full restores %d (%d bytes); %d instances adopted, %d refused",
		n.Entries, n.Bytes, n.RestoredEntries, n.Restored, n.Adopted, n.Fallbacks)
	return n
}

// runRouted feeds step st to the instances ops: a chunk's rows to the
// instance the hash exchange routes them to, a control message to all.
func runRouted(t *testing.T, ops []exec.Operator, keys [][]int, st Step, out exec.Emitter) {
	t.Helper()
	ctx := context.Background()
	for i, op := range ops {
		var err error
		if st.Ctl != nil {
			err = op.OnControl(ctx, *st.Ctl, out)
		} else if text, ok := routed(t, keys[st.Input], st.In, i, len(ops)); ok {
			ch := Chunk(t, Alloc(t), text)
			err = op.Process(ctx, st.Input, ch, out)
			ch.Batch.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func sortedLines(text string) string {
	lines := strings.Split(text, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// recorder is a StateWriter that writes to a State and records every
// write as a line.
type recorder struct {
	*State
	ops []string
}

func (r *recorder) Put(group int, key, value []byte) error {
	r.ops = append(r.ops, fmt.Sprintf("put %d %x %x", group, key, value))
	return r.State.Put(group, key, value)
}

func (r *recorder) Delete(group int, key []byte) error {
	r.ops = append(r.ops, fmt.Sprintf("delete %d %x", group, key))
	return r.State.Delete(group, key)
}

// groupsRead is a StateReader that records the ranges of key groups
// scanned, and counts the entries and bytes read.
type groupsRead struct {
	exec.StateReader
	ranges         []exec.KeyGroupRange
	entries, bytes int
}

func (r *groupsRead) Scan(ctx context.Context, groups exec.KeyGroupRange, fn func(group int, key, value []byte) error) error {
	r.ranges = append(r.ranges, groups)
	return r.StateReader.Scan(ctx, groups, func(g int, k, v []byte) error {
		r.entries++
		r.bytes += len(k) + len(v)
		return fn(g, k, v)
	})
}

// HashRow returns the hash exec.HashRows gives the columns cols of row
// (of types ts), as the hash exchange would route it: for a test to find
// the key group of a row an operator holds.
func HashRow(t testing.TB, row []types.Datum, ts []types.T, cols []int) uint64 {
	t.Helper()
	rec := types.BuildRecord(memory.NewGoAllocator(), Names(len(ts)), ts, [][]types.Datum{row})
	defer rec.Release()
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = rec.Column(c)
	}
	h := make([]uint64, 1)
	if err := exec.HashRows(arrs, h); err != nil {
		t.Fatal(err)
	}
	return h[0]
}
