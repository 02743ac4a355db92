package setop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestAdoptGroupsEqualsRestore feeds random changelogs of both inputs
// (inserts, deletes, updates of rows held) to two fleets of each set
// operation that change parallelism 1 → 2 → 3 → 1 → 4 → 2 at checkpoints
// (exectest.CheckMoves): one moves by AdoptGroups, the other by a full
// restore. After every move an adopting instance must hold what its twin
// holds (dumpSetop), have read only the key groups it gained, and both
// fleets must emit the same rows and write the same entries at every
// later checkpoint.
func TestAdoptGroupsEqualsRestore(t *testing.T) {
	for _, kind := range []Kind{Intersect, IntersectAll, Except, ExceptAll} {
		t.Run(strings.ReplaceAll(kind.String(), " ", "_"), func(t *testing.T) {
			cfg := Config{Kind: kind, Types: randTypes, Names: []string{"x", "s", "f"}}
			for seed := range uint64(4) {
				n := exectest.CheckMoves(t, exectest.Moves{
					New:         exectest.Maker(t, func() (*Operator, error) { return New(cfg) }),
					Steps:       moveSteps(rand.New(rand.NewPCG(seed, 21))),
					Keys:        [][]int{{0, 1, 2}, {0, 1, 2}},
					Parallelism: []int{1, 2, 3, 1, 4, 2},
					Dump:        dumpSetop,
				})
				if n.Entries >= n.RestoredEntries {
					t.Fatalf("adopting read %d entries, restoring %d", n.Entries, n.RestoredEntries)
				}
			}
		})
	}
}

// moveSteps returns 48 chunks of random changes of either input, each
// only retracting rows its input holds.
func moveSteps(r *rand.Rand) []exectest.Step {
	row := func() string {
		v := []string{fmt.Sprint(r.IntN(40)), []string{"a", "b"}[r.IntN(2)], []string{"0", "1.5"}[r.IntN(2)]}
		for i := range v {
			if r.IntN(8) == 0 {
				v[i] = "NULL"
			}
		}
		return strings.Join(v, " ")
	}
	var held [2][]string
	var steps []exectest.Step
	for range 48 {
		in := r.IntN(2)
		lines := []string{"bigint varchar double"}
		for range 1 + r.IntN(12) {
			h := held[in]
			switch k := r.IntN(10); {
			case k < 2 && len(h) > 0:
				i := r.IntN(len(h))
				lines = append(lines, "-D "+h[i])
				held[in] = slices.Delete(h, i, i+1)
			case k < 4 && len(h) > 0:
				i := r.IntN(len(h))
				nr := row()
				lines = append(lines, "-U "+h[i], "+U "+nr)
				h[i] = nr
			default:
				nr := row()
				lines = append(lines, "+I "+nr)
				held[in] = append(h, nr)
			}
		}
		steps = append(steps, exectest.Step{In: strings.Join(lines, "\n"), Input: in})
	}
	return steps
}

// dumpSetop renders the state of a set operation: every row held (key
// group, key, counts, flags) and the delta. It fails t for a row outside
// the instance's key groups.
func dumpSetop(t *testing.T, op exec.Operator) string {
	t.Helper()
	o := op.(*Operator)
	var lines []string
	for id := range o.tab.entries {
		e := &o.tab.entries[id]
		if e.flags&live == 0 {
			continue
		}
		g := exec.KeyGroup(e.hash)
		if !o.env.KeyGroups.Contains(g) {
			t.Errorf("a row of key group %d in an instance owning %v", g, o.env.KeyGroups)
		}
		lines = append(lines, fmt.Sprintf("%d %x %d %d %b", g, o.tab.key(e), e.a, e.b, e.flags))
	}
	slices.Sort(lines)
	lines = append(lines, fmt.Sprintf("%d rows, %d changed, %d deletions", o.tab.idx.Len(), len(o.d.changed), len(o.d.delEnds)))
	return strings.Join(lines, "\n")
}
