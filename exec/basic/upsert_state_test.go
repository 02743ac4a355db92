package basic

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

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
	return upsertStepsOf(tc, r, n, map[string][]string{
		"bigint":        {"1", "2", "3", "4", "5", "NULL"},
		"varchar":       {"a", "b", "c", "d"},
		"double":        {"-1.5", "0", "2.25", "NaN"},
		"date":          {"2024-01-01", "2024-02-29"},
		"decimal(10,2)": {"1.50", "-2.00", "3.25", "4.00"},
		"boolean":       {"true", "false"},
	})
}

// upsertStepsOf is upsertSteps drawing each column's values, by type, from
// values.
func upsertStepsOf(tc upsertCase, r *rand.Rand, n int, values map[string][]string) []exectest.Step {
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
	exectest.CheckRestore(t, exectest.Restore{
		New:   func() exec.Operator { return newUpsert(t, tc) },
		Steps: steps, Keys: tc.keys, Snapshots: snaps,
	})
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
	feed := func(lines []string) { exectest.Feed(t, u, alloc, tc.input+"\n"+strings.Join(lines, "\n")) }
	const keys = 10000
	var lines []string
	for k := range keys {
		lines = append(lines, fmt.Sprintf("+I %d name%05d %d", k, k, k%7))
	}
	feed(lines)
	if len(u.delta.ends) != 0 {
		t.Fatalf("%d keys listed before any snapshot", len(u.delta.ends))
	}
	// 1%, each changed ten times: 80 keys updated, 20 deleted (after
	// being deleted and inserted again nine times); round 9 is odd, so the
	// 20 keys deleted in even rounds were inserted again.
	exectest.CheckIncremental(t, exectest.Incremental{Op: u, Full: keys, Change: func() {
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
	}, Changed: exectest.Counts{Puts: 100, Deletes: 10, Len: keys - 10}, Percent: 2})
}

// TestUpsertRestoreRefusesDamagedState checks that a damaged entry (a
// truncated or trailing row, a row counted twice, a key that is not its
// row's, a row in another key group) fails the restore with an error of
// the Upsert, and that a snapshot or restore before Open fails.
func TestUpsertRestoreRefusesDamagedState(t *testing.T) {
	tc := upsertCases[0]
	state := exectest.SnapshotAfter(t, newUpsert(t, tc), exectest.CollectorOptions{}, tc.input+"\n+I 1 a 10\n+I 2 b 20\n+I 3 c 30")
	g, key, good := state.Any()
	exectest.CheckDamaged(t, exectest.Damaged{OpenFirst: true,
		New: func() exec.Operator { return newUpsert(t, tc) }, State: state, Wrap: errUpsertRestore,
		Damages: []exectest.Damage{
			{Name: "truncated", Edit: func(s *exectest.State) { s.Entries[g][key] = good[:len(good)-1] }},
			{Name: "trailing", Edit: func(s *exectest.State) { s.Entries[g][key] = append(slices.Clone(good), 0) }},
			{Name: "counted twice", Edit: func(s *exectest.State) { s.Entries[g][key] = append([]byte{2}, good[1:]...) }},
			{Name: "another key", Edit: func(s *exectest.State) { s.Entries[g][key+"\x00"] = good; delete(s.Entries[g], key) }},
			{Name: "another group", Edit: func(s *exectest.State) {
				s.Entries[(g+1)%exec.NumKeyGroups] = map[string][]byte{key: good}
				delete(s.Entries[g], key)
			}},
		},
	})
}
