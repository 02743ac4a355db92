package basic

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// upsertCase is a table: its column types and primary key.
type upsertCase struct {
	name  string
	input string
	keys  []int
}

var upsertCases = []upsertCase{
	{name: "bigint-key", input: "bigint varchar bigint", keys: []int{0}},
	{name: "two-keys", input: "varchar double bigint date", keys: []int{3, 0}},
	{name: "decimal-key", input: "decimal(10,2) boolean varchar", keys: []int{0}},
}

// newUpsert returns an Upsert of tc.
func newUpsert(t testing.TB, tc upsertCase) *Upsert {
	ts := exectest.Types(t, tc.input)
	return &Upsert{Names: exectest.Names(len(ts)), Types: ts, Keys: tc.keys}
}

// upsertSteps returns steps of random upserts of a table of tc, keys
// drawn from a few values so that they are updated (sometimes to the same
// row) and deleted (a retraction naming a key held) over and over.
func upsertSteps(tc upsertCase, r *rand.Rand, n int) []exectest.Step {
	values := map[string][]string{
		"bigint":        {"1", "2", "3", "4", "5", "NULL"},
		"varchar":       {"a", "b", "c", "d"},
		"double":        {"-1.5", "0", "2.25", "NaN"},
		"date":          {"2024-01-01", "2024-02-29"},
		"decimal(10,2)": {"1.50", "-2.00", "3.25", "4.00"},
		"boolean":       {"true", "false"},
	}
	ts := strings.Fields(tc.input)
	row := func() []string {
		f := make([]string, len(ts))
		for i, typ := range ts {
			f[i] = values[typ][r.IntN(len(values[typ]))]
		}
		return f
	}
	key := func(f []string) string {
		var k []string
		for _, c := range tc.keys {
			k = append(k, f[c])
		}
		return strings.Join(k, " ")
	}
	live := map[string][]string{}
	var steps []exectest.Step
	for range n {
		lines := []string{tc.input}
		for range 1 + r.IntN(10) {
			if r.IntN(4) == 0 && len(live) > 0 {
				ks := slices.Sorted(maps.Keys(live))
				k := ks[r.IntN(len(ks))]
				f := row()
				for i, c := range tc.keys {
					f[c] = strings.Fields(k)[i]
				}
				lines = append(lines, "-D "+strings.Join(f, " "))
				delete(live, k)
				continue
			}
			f := row()
			live[key(f)] = f
			lines = append(lines, "+I "+strings.Join(f, " "))
		}
		steps = append(steps, exectest.Step{In: strings.Join(lines, "\n"), AnyOut: true})
	}
	return steps
}

// upsertRecording runs an Upsert and records, by step, its output lines.
type upsertRecording struct {
	exec.Operator
	out   *exectest.Collector
	lines [][]string
}

func (r *upsertRecording) Process(ctx context.Context, in int, c exec.Chunk, _ exec.Emitter) error {
	r.lines = append(r.lines, nil)
	return r.Operator.Process(ctx, in, c, r)
}

func (r *upsertRecording) Emit(ctx context.Context, c exec.Chunk) error {
	if err := r.out.Emit(ctx, c); err != nil {
		return err
	}
	k := len(r.lines) - 1
	r.lines[k] = append(r.lines[k], strings.Split(r.out.Take(), "\n")...)
	return nil
}

// restoringUpsert restores an Upsert as it opens, as the runtime does.
type restoringUpsert struct {
	*Upsert
	state  *exectest.State
	groups exec.KeyGroupRange
}

func (r *restoringUpsert) Open(ctx context.Context, env *exec.Env) error {
	if err := r.Upsert.Open(ctx, env); err != nil {
		return err
	}
	return r.Upsert.Restore(ctx, r.state, r.groups)
}

// routedRows returns the chunk text of the rows instance i of p receives
// through the hash exchange on keys, and whether there is any.
func routedRows(t *testing.T, keys []int, text string, i, p int) (string, bool) {
	ch := exectest.Chunk(t, exectest.Alloc(t), text)
	defer ch.Batch.Release()
	cols := make([]arrow.Array, len(keys))
	for c, k := range keys {
		cols[c] = ch.Batch.Column(k)
	}
	hashes := make([]uint64, ch.NumRows())
	if err := exec.HashRows(cols, hashes); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	out := lines[:1:1]
	for r, h := range hashes {
		if exec.InstanceForKeyGroup(exec.KeyGroup(h), p) == i {
			out = append(out, lines[1+r])
		}
	}
	return strings.Join(out, "\n"), len(out) > 1
}

// TestUpsertRestoreContinuesTheRun runs random upserts and deletes through
// an Upsert, snapshotting it at three random steps of the first two
// thirds, then restores the last snapshot into 1, 2 and 3 instances, each
// owning its key groups and fed the rest of the rows the exchange routes
// to it: at every step the union of their outputs is the uninterrupted
// run's, and so is the final integral.
func TestUpsertRestoreContinuesTheRun(t *testing.T) {
	for _, tc := range upsertCases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(6) {
				r := rand.New(rand.NewPCG(seed, 5))
				steps := upsertSteps(tc, r, 30)
				cut := 10 + r.IntN(10)
				snaps := []int{r.IntN(cut / 2), cut/2 + r.IntN(cut/2), cut}
				checkUpsertRestore(t, tc, steps, snaps)
			}
		})
	}
}

// checkUpsertRestore is TestUpsertRestoreContinuesTheRun for one input,
// snapshotting after the steps snaps, the last of which is the cut.
func checkUpsertRestore(t *testing.T, tc upsertCase, steps []exectest.Step, snaps []int) {
	t.Helper()
	alloc := exectest.Alloc(t)
	state := exectest.NewState()
	cut := snaps[len(snaps)-1]
	u := newUpsert(t, tc)
	ref := &upsertRecording{Operator: u, out: exectest.NewCollector(t, exectest.CollectorOptions{})}
	refSteps := slices.Clone(steps)
	for _, k := range snaps {
		refSteps[k].Check = func(t *testing.T) { state.Snapshot(t, u, uint64(k)) }
	}
	(&exectest.Runner{Op: ref, Env: exec.NewTestEnv(alloc), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}).Run(t, refSteps)
	for _, p := range []int{1, 2, 3} {
		out := exectest.NewCollector(t, exectest.CollectorOptions{})
		(&exectest.Runner{Op: newUpsert(t, tc), Env: exec.NewTestEnv(alloc), Out: out}).Run(t, steps[:cut+1])
		got := make([][]string, len(steps))
		for i := range p {
			env := exec.NewTestEnv(alloc)
			env.Parallelism, env.KeyGroups = p, exec.KeyGroupsOf(i, p)
			inst := &upsertRecording{Operator: &restoringUpsert{Upsert: newUpsert(t, tc), state: state, groups: env.KeyGroups}, out: out}
			var isteps []exectest.Step
			var ks []int
			for k := cut + 1; k < len(steps); k++ {
				if text, ok := routedRows(t, tc.keys, steps[k].In, i, p); ok {
					isteps = append(isteps, exectest.Step{In: text, AnyOut: true})
					ks = append(ks, k)
				}
			}
			(&exectest.Runner{Op: inst, Env: env, Out: exectest.NewCollector(t, exectest.CollectorOptions{})}).Run(t, isteps)
			for j, k := range ks {
				got[k] = append(got[k], inst.lines[j]...)
			}
		}
		for k := cut + 1; k < len(steps); k++ {
			want := slices.Clone(ref.lines[k])
			slices.Sort(want)
			slices.Sort(got[k])
			if !slices.Equal(got[k], want) {
				t.Fatalf("p=%d step %d: restored instances emitted\n%s\nuninterrupted\n%s", p, k,
					strings.Join(got[k], "\n"), strings.Join(want, "\n"))
			}
		}
		if g, w := strings.Join(out.Rows(), "\n"), strings.Join(ref.out.Rows(), "\n"); g != w {
			t.Fatalf("p=%d: integrated output\n%s\nuninterrupted\n%s", p, g, w)
		}
	}
}

// TestUpsertSnapshotIsIncremental checks that after 10,000 keys, updating
// 1% of them (a fifth of those deleted) writes an entry for each and
// nothing else, about 1% of the bytes of the full snapshot; and that
// keys changed over and over between snapshots are listed once.
func TestUpsertSnapshotIsIncremental(t *testing.T) {
	tc := upsertCase{input: "bigint varchar bigint", keys: []int{0}}
	u := newUpsert(t, tc)
	alloc, ctx := exectest.Alloc(t), context.Background()
	if err := u.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	feed := func(lines []string) {
		t.Helper()
		ch := exectest.Chunk(t, alloc, tc.input+"\n"+strings.Join(lines, "\n"))
		defer ch.Batch.Release()
		if err := u.Process(ctx, 0, ch, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
			c.Batch.Release()
			return nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	const keys = 10000
	var lines []string
	for k := range keys {
		lines = append(lines, fmt.Sprintf("+I %d name%05d %d", k, k, k%7))
	}
	feed(lines)
	if len(u.delta.ends) != 0 {
		t.Fatalf("%d keys listed before any snapshot", len(u.delta.ends))
	}
	state := exectest.NewState()
	state.Snapshot(t, u, 1)
	full := state.Bytes
	if state.Puts != keys || state.Deletes != 0 {
		t.Fatalf("first snapshot: %d puts, %d deletes; want %d puts", state.Puts, state.Deletes, keys)
	}
	state.Snapshot(t, u, 2)
	if state.Puts != 0 || state.Deletes != 0 {
		t.Fatalf("snapshot of no change: %d puts, %d deletes", state.Puts, state.Deletes)
	}
	// 1%, each changed ten times: 80 keys updated, 20 deleted (after
	// being deleted and inserted again nine times).
	for round := range 10 {
		lines = lines[:0]
		for k := 0; k < keys; k += 100 {
			switch {
			case k%500 != 0:
				lines = append(lines, fmt.Sprintf("+I %d name%05d %d", k, k, 100+round))
			case round%2 == 0:
				lines = append(lines, fmt.Sprintf("-D %d x 0", k))
			default:
				lines = append(lines, fmt.Sprintf("+I %d name%05d %d", k, k, k%7))
			}
		}
		lines = append(lines, fmt.Sprintf("-D %d x 0", 5001+2*round)) // once each: deleted keys are listed
		feed(lines)
	}
	if n := len(u.delta.ends); n != 100+10 {
		t.Fatalf("%d keys listed for 110 keys changed", n)
	}
	state.Snapshot(t, u, 3)
	// Round 9 is odd: the 20 keys deleted in even rounds were inserted again.
	if state.Puts != 100 || state.Deletes != 10 || state.Len() != keys-10 {
		t.Fatalf("snapshot of 1%%: %d puts, %d deletes, %d entries; want 100, 10, %d", state.Puts, state.Deletes, state.Len(), keys-10)
	}
	t.Logf("full snapshot %d bytes, 1%% of the keys %d bytes", full, state.Bytes)
	if state.Bytes*100 > 2*full {
		t.Fatalf("snapshot of 1%% wrote %d bytes, the full one %d", state.Bytes, full)
	}
}

// TestUpsertRestoreRefusesDamagedState checks that a damaged entry (a
// truncated or trailing row, a row counted twice, a key that is not its
// row's, a row in another key group) fails the restore with an error of
// the Upsert, and that a snapshot or restore before Open fails.
func TestUpsertRestoreRefusesDamagedState(t *testing.T) {
	tc := upsertCases[0]
	ctx := context.Background()
	u := newUpsert(t, tc)
	if err := u.Snapshot(ctx, 1, exectest.NewState()); err == nil {
		t.Fatal("snapshot before Open succeeded")
	}
	if err := u.Restore(ctx, exectest.NewState(), exec.KeyGroupsOf(0, 1)); err == nil {
		t.Fatal("restore before Open succeeded")
	}
	alloc := exectest.Alloc(t)
	state := exectest.NewState()
	(&exectest.Runner{Op: u, Env: exec.NewTestEnv(alloc), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}).Run(t, []exectest.Step{{
		In: tc.input + "\n+I 1 a 10\n+I 2 b 20\n+I 3 c 30", AnyOut: true,
		Check: func(t *testing.T) { state.Snapshot(t, u, 1) },
	}})
	var g int
	var key string
	for g = range state.Entries {
		for key = range state.Entries[g] {
			break
		}
	}
	good := state.Entries[g][key]
	for _, tc2 := range []struct {
		name string
		edit func()
	}{
		{"truncated", func() { state.Entries[g][key] = good[:len(good)-1] }},
		{"trailing", func() { state.Entries[g][key] = append(slices.Clone(good), 0) }},
		{"counted twice", func() { state.Entries[g][key] = append([]byte{2}, good[1:]...) }},
		{"another key", func() { state.Entries[g][key+"\x00"] = good; delete(state.Entries[g], key) }},
		{"another group", func() {
			state.Entries[(g+1)%exec.NumKeyGroups] = map[string][]byte{key: good}
			delete(state.Entries[g], key)
		}},
	} {
		t.Run(tc2.name, func(t *testing.T) {
			old := maps.Clone(state.Entries)
			for k, v := range old {
				old[k] = maps.Clone(v)
			}
			defer func() { state.Entries = old }()
			tc2.edit()
			r := newUpsert(t, tc)
			if err := r.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			err := r.Restore(ctx, state, exec.KeyGroupsOf(0, 1))
			if !errors.Is(err, errUpsertRestore) {
				t.Fatalf("got %v, want an error of the Upsert's restore", err)
			}
		})
	}
}
