package exectest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// Restoring returns op (which must be exec.Stateful) wrapped so that it
// restores the key groups of its environment from state as it opens, as
// the runtime restores an operator after Open and before any input.
func Restoring(op exec.Operator, state *State) exec.Operator {
	return &restoring{Operator: op, state: state}
}

// restoring is the operator Restoring returns.
type restoring struct {
	exec.Operator
	state *State
}

func (r *restoring) Open(ctx context.Context, env *exec.Env) error {
	if err := r.Operator.Open(ctx, env); err != nil {
		return err
	}
	return r.Operator.(exec.Stateful).Restore(ctx, r.state, env.KeyGroups)
}

// InstanceEnv returns a test environment of instance i of p, owning its
// key groups, whose processing-time clock is clock (if not nil).
func InstanceEnv(alloc memory.Allocator, i, p int, clock func() time.Time) *exec.Env {
	env := exec.NewTestEnv(alloc)
	env.Instance, env.Parallelism, env.KeyGroups = i, p, exec.KeyGroupsOf(i, p)
	if clock != nil {
		env.Clock = clock
	}
	return env
}

// Open opens op with env, failing t on an error, and closes it when t
// ends.
func Open(t testing.TB, op exec.Operator, env *exec.Env) {
	t.Helper()
	if err := op.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.Close() })
}

// Maker returns a function that returns the operator newOp returns,
// failing t on an error: the New of a Restore or Damaged for a
// constructor that can fail.
func Maker[O exec.Operator](t testing.TB, newOp func() (O, error)) func() exec.Operator {
	return func() exec.Operator {
		op, err := newOp()
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
}

// Feed has op, opened, process the chunk text on input 0, releasing the
// chunks it emits, and fails t on an error.
func Feed(t testing.TB, op exec.Operator, alloc memory.Allocator, text string) {
	t.Helper()
	ctx := context.Background()
	ch := Chunk(t, alloc, text)
	defer ch.Batch.Release()
	if err := op.Process(ctx, 0, ch, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
		c.Batch.Release()
		return nil
	})); err != nil {
		t.Fatal(err)
	}
}

// Counts are what a snapshot is to write and the entries to be held after
// it, for CheckIncremental; a negative count is not checked.
type Counts struct{ Puts, Deletes, Len int }

// Incremental describes the test that CheckIncremental runs: that a
// snapshot writes only what changed since the previous one.
type Incremental struct {
	// Op is the operator, open and holding its input.
	Op exec.Stateful
	// Full is the number of entries of its first snapshot (negative: any
	// number but none).
	Full int
	// Change has Op change about 1% of what it holds.
	Change func()
	// Changed are the counts of the snapshot after Change.
	Changed Counts
	// Percent is the most the snapshot after Change may write, in percent
	// of the bytes of the first.
	Percent int
}

// CheckIncremental snapshots inc.Op into a new State three times: first
// (every entry put, none deleted), again at once (nothing written), and
// after inc.Change (inc.Changed, and at most inc.Percent% of the first's
// bytes). It returns the state, whose counts are the third snapshot's.
func CheckIncremental(t *testing.T, inc Incremental) *State {
	t.Helper()
	state := NewState()
	state.Snapshot(t, inc.Op, 1)
	full := state.Bytes
	if state.Puts != state.Len() || state.Deletes != 0 || state.Len() == 0 || inc.Full >= 0 && state.Len() != inc.Full {
		t.Fatalf("first snapshot: %d puts, %d deletes, %d entries; want %d puts", state.Puts, state.Deletes, state.Len(), inc.Full)
	}
	state.Snapshot(t, inc.Op, 2)
	if state.Puts != 0 || state.Deletes != 0 {
		t.Fatalf("snapshot of no change: %d puts, %d deletes", state.Puts, state.Deletes)
	}
	inc.Change()
	state.Snapshot(t, inc.Op, 3)
	want := inc.Changed
	if want.Puts >= 0 && state.Puts != want.Puts || want.Deletes >= 0 && state.Deletes != want.Deletes ||
		want.Len >= 0 && state.Len() != want.Len {
		t.Fatalf("snapshot of 1%%: %d puts, %d deletes, %d entries; want %d, %d, %d",
			state.Puts, state.Deletes, state.Len(), want.Puts, want.Deletes, want.Len)
	}
	t.Logf("full snapshot %d bytes (%d entries), after 1%% changed %d bytes (%d puts, %d deletes)",
		full, state.Len(), state.Bytes, state.Puts, state.Deletes)
	if state.Bytes*100 > inc.Percent*full {
		t.Fatalf("snapshot of 1%% wrote %d bytes, the full one %d", state.Bytes, full)
	}
	return state
}

// SnapshotAfter opens op (which must also be exec.Stateful) in a test
// environment, has it process the chunk text in (its output collected
// with opts), snapshots it into a new State as checkpoint 1, closes it,
// and returns the State.
func SnapshotAfter(t *testing.T, op exec.Operator, opts CollectorOptions, in string) *State {
	t.Helper()
	state := NewState()
	(&Runner{Op: op, Env: exec.NewTestEnv(Alloc(t)), Out: NewCollector(t, opts)}).Run(t, []Step{{
		In: in, AnyOut: true,
		Check: func(t *testing.T) { state.Snapshot(t, op.(exec.Stateful), 1) },
	}})
	return state
}

// Any returns an entry of s: its key group, key and value.
func (s *State) Any() (group int, key string, value []byte) {
	for g, entries := range s.Entries {
		for k, v := range entries {
			return g, k, v
		}
	}
	return 0, "", nil
}

// Damage is one way of damaging a checkpoint, for CheckDamaged.
type Damage struct {
	Name string
	// Edit damages the entries of a copy of the state.
	Edit func(s *State)
	// Want, if not nil, is an error Restore's must wrap besides
	// Damaged.Wrap.
	Want error
	// OK says that the edit does no damage: Restore must succeed.
	OK bool
}

// Damaged describes the test of how an operator's Restore reports damaged
// state that CheckDamaged runs.
type Damaged struct {
	// New returns a new instance of the operator, which must also be
	// exec.Stateful.
	New func() exec.Operator
	// State is a good checkpoint of the operator.
	State *State
	// Damages are the edits of State that Restore must refuse.
	Damages []Damage
	// Wrap is an error that every error of Restore must wrap, and Says, if
	// not "", a text the error must contain.
	Wrap error
	Says string
	// OpenFirst says that a snapshot or a restore before Open must fail.
	OpenFirst bool
}

// CheckDamaged checks that a snapshot and a restore before Open fail (if
// d.OpenFirst), and that for each damage a new instance, opened, fails to restore from the
// damaged copy of d.State with an error wrapping d.Wrap and the damage's
// Want (unless the damage is OK).
func CheckDamaged(t *testing.T, d Damaged) {
	t.Helper()
	ctx := context.Background()
	if d.OpenFirst {
		op := d.New().(exec.Stateful)
		if err := op.Snapshot(ctx, 1, NewState()); err == nil {
			t.Fatal("snapshot before Open succeeded")
		}
		if err := op.Restore(ctx, NewState(), exec.KeyGroupsOf(0, 1)); err == nil {
			t.Fatal("restore before Open succeeded")
		}
	}
	for _, dm := range d.Damages {
		t.Run(dm.Name, func(t *testing.T) {
			state := d.State.Clone()
			dm.Edit(state)
			op := d.New()
			if err := op.Open(ctx, exec.NewTestEnv(Alloc(t))); err != nil {
				t.Fatal(err)
			}
			defer op.Close()
			err := op.(exec.Stateful).Restore(ctx, state, exec.KeyGroupsOf(0, 1))
			if dm.OK {
				if err != nil {
					t.Fatalf("restore of an undamaged state: %v", err)
				}
				return
			}
			if !errors.Is(err, d.Wrap) || dm.Want != nil && !errors.Is(err, dm.Want) ||
				!strings.Contains(fmt.Sprint(err), d.Says) {
				t.Fatalf("got %v, want an error wrapping %v and %v, saying %q", err, d.Wrap, dm.Want, d.Says)
			}
		})
	}
}
