package setop

import (
	"errors"
	"fmt"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// newOp returns an operator of kind over (BIGINT, VARCHAR) rows.
func newOp(t testing.TB, kind Kind) *Operator {
	t.Helper()
	op, err := New(Config{Kind: kind, Types: []types.T{types.BigIntT, types.VarcharT}, Names: []string{"x", "s"}})
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// run runs steps through an operator of kind.
func run(t *testing.T, kind Kind, steps []exectest.Step) {
	t.Helper()
	alloc := exectest.Alloc(t)
	(&exectest.Runner{Op: newOp(t, kind), Env: exec.NewTestEnv(alloc), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}).Run(t, steps)
}

const hdr = "bigint varchar"

// TestKinds feeds each operation inserts and retractions on both sides,
// NULLs among them, and checks each step's change of the result.
func TestKinds(t *testing.T) {
	left := exectest.Step{Input: 0, In: hdr + `
		+I 1 a
		+I 1 a
		+I 1 a
		+I 2 NULL
		+I 3 c`}
	right := exectest.Step{Input: 1, In: hdr + `
		+I 1 a
		+I 1 a
		+I 2 NULL
		+I 4 d`}
	retractLeft := exectest.Step{Input: 0, In: hdr + `
		-D 1 a
		-U 2 NULL
		+U 3 c`}
	retractRight := exectest.Step{Input: 1, In: hdr + `
		-D 1 a
		-D 1 a
		-D 4 d`}
	for _, tc := range []struct {
		kind Kind
		want [4]string
	}{
		{IntersectAll, [4]string{"", `
			+I 1 a
			+I 1 a
			+I 2 NULL`, `
			-D 2 NULL`, `
			-D 1 a
			-D 1 a`}},
		{Intersect, [4]string{"", `
			+I 1 a
			+I 2 NULL`, `
			-D 2 NULL`, `
			-D 1 a`}},
		{ExceptAll, [4]string{`
			+I 1 a
			+I 1 a
			+I 1 a
			+I 2 NULL
			+I 3 c`, `
			-D 1 a
			-D 1 a
			-D 2 NULL`, `
			-D 1 a
			+I 3 c`, `
			+I 1 a
			+I 1 a`}},
		{Except, [4]string{`
			+I 1 a
			+I 2 NULL
			+I 3 c`, `
			-D 1 a
			-D 2 NULL`, "", `
			+I 1 a`}},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			steps := []exectest.Step{left, right, retractLeft, retractRight}
			for i := range steps {
				steps[i].Want = tc.want[i]
			}
			run(t, tc.kind, steps)
		})
	}
}

// TestMult checks the multiplicities of the four operations, negative
// counts included.
func TestMult(t *testing.T) {
	for _, tc := range []struct {
		kind       Kind
		a, b, want int64
	}{
		{IntersectAll, 3, 2, 2}, {IntersectAll, 0, 2, 0}, {IntersectAll, -1, 2, 0},
		{Intersect, 3, 2, 1}, {Intersect, 3, 0, 0}, {Intersect, 1, -1, 0},
		{ExceptAll, 3, 2, 1}, {ExceptAll, 2, 3, 0}, {ExceptAll, 2, -3, 2},
		{Except, 3, 0, 1}, {Except, 3, 1, 0}, {Except, 0, 0, 0}, {Except, 1, -2, 1},
	} {
		if got := tc.kind.Mult(tc.a, tc.b); got != tc.want {
			t.Errorf("%s.Mult(%d, %d) = %d, want %d", tc.kind, tc.a, tc.b, got, tc.want)
		}
	}
}

// TestBadInput checks the refusals of Process.
func TestBadInput(t *testing.T) {
	alloc := exectest.Alloc(t)
	op := newOp(t, Intersect)
	exectest.Open(t, op, exec.NewTestEnv(alloc))
	ch := exectest.Chunk(t, alloc, "bigint\n+I 1")
	defer ch.Batch.Release()
	if err := op.Process(t.Context(), 0, ch, exectest.NewCollector(t, exectest.CollectorOptions{})); err == nil {
		t.Fatal("a chunk of one column was accepted")
	}
	if err := op.Process(t.Context(), 2, ch, exectest.NewCollector(t, exectest.CollectorOptions{})); err == nil {
		t.Fatal("input 2 was accepted")
	}
	if _, err := New(Config{Kind: Except, Types: []types.T{types.BigIntT}}); err == nil {
		t.Fatal("a configuration without names was accepted")
	}
}

// TestIncrementalSnapshot checks that a snapshot after 1% of the rows
// changed writes only those: their puts and, for the rows whose counts
// fell to zero, their deletes.
func TestIncrementalSnapshot(t *testing.T) {
	alloc := exectest.Alloc(t)
	op := newOp(t, ExceptAll)
	exectest.Open(t, op, exec.NewTestEnv(alloc))
	text := hdr + "\n"
	for i := range 1000 {
		text += fmt.Sprintf("+I %d s%d\n", i, i%7)
	}
	exectest.Feed(t, op, alloc, text)
	exectest.CheckIncremental(t, exectest.Incremental{
		Op: op, Full: 1000, Percent: 3,
		Change: func() {
			// Five rows change count, five leave.
			change := hdr + "\n"
			for i := range 5 {
				change += fmt.Sprintf("+I %d s%d\n-D %d s%d\n", i, i%7, 500+i, (500+i)%7)
			}
			exectest.Feed(t, op, alloc, change)
		},
		Changed: exectest.Counts{Puts: 5, Deletes: 5, Len: 995},
	})
}

// TestDamaged checks that Restore refuses damaged entries.
func TestDamaged(t *testing.T) {
	state := exectest.SnapshotAfter(t, newOp(t, IntersectAll), exectest.CollectorOptions{}, hdr+"\n+I 1 a\n+I 2 NULL")
	newRestoring := func() exec.Operator { return newOp(t, IntersectAll) }
	exectest.CheckDamaged(t, exectest.Damaged{
		New: newRestoring, State: state, Wrap: errRestore, OpenFirst: true,
		Damages: []exectest.Damage{
			{Name: "bad value", Edit: func(s *exectest.State) {
				g, k, _ := s.Any()
				s.Entries[g][k] = []byte{9, 2, 2}
			}},
			{Name: "zero counts", Edit: func(s *exectest.State) {
				g, k, _ := s.Any()
				s.Entries[g][k] = []byte{entryFormat, 0, 0}
			}},
			{Name: "truncated row", Edit: func(s *exectest.State) {
				g, k, v := s.Any()
				delete(s.Entries[g], k)
				s.Entries[g][k[:len(k)-1]] = v
			}},
			{Name: "wrong key group", Edit: func(s *exectest.State) {
				g, k, v := s.Any()
				delete(s.Entries[g], k)
				g = (g + 1) % exec.NumKeyGroups
				if s.Entries[g] == nil {
					s.Entries[g] = map[string][]byte{}
				}
				s.Entries[g][k] = v
			}},
		},
	})
}

// failingWriter fails every Put after the first ok.
type failingWriter struct {
	*exectest.State
	ok int
}

func (w *failingWriter) Put(group int, key, value []byte) error {
	if w.ok == 0 {
		return errors.New("store unavailable")
	}
	w.ok--
	return w.State.Put(group, key, value)
}

// TestSnapshotRetry checks that a snapshot the writer fails part way
// through is written whole by the next one: a failed epoch is discarded, so
// nothing it listed may be forgotten.
func TestSnapshotRetry(t *testing.T) {
	alloc := exectest.Alloc(t)
	op := newOp(t, IntersectAll)
	exectest.Open(t, op, exec.NewTestEnv(alloc))
	exectest.Feed(t, op, alloc, hdr+"\n+I 1 a\n+I 2 b\n+I 3 c")
	if err := op.Snapshot(t.Context(), 1, &failingWriter{State: exectest.NewState(), ok: 1}); err == nil {
		t.Fatal("the failing writer's error was lost")
	}
	state := exectest.NewState()
	state.Snapshot(t, op, 2)
	if state.Len() != 3 {
		t.Fatalf("the snapshot after a failed one holds %d rows, want 3", state.Len())
	}
}
