package topn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// TestAdoptGroupsEqualsRestore runs every partitioned configuration of
// the randomized test through two fleets of Top-N instances that change
// parallelism 1 → 2 → 3 → 1 → 4 → 2 at checkpoints (exectest.CheckMoves):
// one moves by AdoptGroups, the other by a full restore. After every move
// an adopting instance must hold what its twin holds (dumpTopN), have
// read only the key groups it gained, and both fleets must emit the same
// rows and write the same entries at every later checkpoint.
func TestAdoptGroupsEqualsRestore(t *testing.T) {
	for _, tc := range randomCases {
		if tc.part == nil {
			continue // a global Top-N runs as one instance
		}
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.part, tc.order, tc.limit, tc.rowNumber, tc.appendOnly)
			for seed := range uint64(4) {
				steps := checkpointSteps(tc, rand.New(rand.NewPCG(seed, 12)))
				n := exectest.CheckMoves(t, exectest.Moves{
					New:         exectest.Maker(t, func() (*Operator, error) { return New(cfg) }),
					Steps:       steps,
					Keys:        [][]int{cfg.Partition},
					Parallelism: []int{1, 2, 3, 1, 4, 2},
					Dump:        dumpTopN,
					Options:     exectest.CollectorOptions{Minimal: true},
				})
				if n.Entries >= n.RestoredEntries {
					t.Fatalf("adopting read %d entries, restoring %d", n.Entries, n.RestoredEntries)
				}
			}
		})
	}
}

// TestMovesHashedOnSomePartitionColumns runs the configurations with
// two PARTITION BY columns as TestAdoptGroupsEqualsRestore does, with
// their input hashed on one of them, or on both in the other order (a
// join's keys before the Top-N, Config.PartKeys): every partition must
// stay in the key group of the columns its rows were routed by (dumpTopN
// fails an instance holding one of another), through every move.
func TestMovesHashedOnSomePartitionColumns(t *testing.T) {
	for _, tc := range randomCases {
		if len(tc.part) != 2 {
			continue
		}
		for _, partKeys := range [][]int{{0}, {1}, {1, 0}} {
			t.Run(fmt.Sprintf("%s/%v", tc.name, partKeys), func(t *testing.T) {
				cfg := testConfig(t, tc.input, tc.part, tc.order, tc.limit, tc.rowNumber, tc.appendOnly)
				cfg.PartKeys = partKeys
				hashed := make([]int, len(partKeys))
				for i, k := range partKeys {
					hashed[i] = tc.part[k]
				}
				for seed := range uint64(3) {
					exectest.CheckMoves(t, exectest.Moves{
						New:         exectest.Maker(t, func() (*Operator, error) { return New(cfg) }),
						Steps:       checkpointSteps(tc, rand.New(rand.NewPCG(seed, 13))),
						Keys:        [][]int{hashed},
						Parallelism: []int{1, 2, 3, 1, 4, 2},
						Dump:        dumpTopN,
						Options:     exectest.CollectorOptions{Minimal: true},
					})
				}
			})
		}
	}
}

// TestPartKeysChecked: a partition key that is not a PARTITION BY
// column's index is refused.
func TestPartKeysChecked(t *testing.T) {
	cfg := testConfig(t, "bigint varchar bigint", []int{0, 1}, "2 desc", 3, false, false)
	cfg.PartKeys = []int{2}
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "partition key 2 is not one of its 2 PARTITION BY columns") {
		t.Fatalf("got %v", err)
	}
}

// dumpTopN renders the state of a Top-N instance: every row held with
// its partition's key group and copies, the gauge, and what the next
// snapshot writes (the changes listed; de-duplication's entry held and
// dirty mark of each slot). It fails t for a partition outside the
// instance's key groups.
func dumpTopN(t *testing.T, op exec.Operator) string {
	t.Helper()
	o := op.(*Operator)
	var lines []string
	if o.slots != nil {
		checkSlots(t, o)
		st := o.slots
		eachSlot(o, func(id int32, s *slot) {
			if !o.env.KeyGroups.Contains(int(s.group)) {
				t.Errorf("a partition of key group %d in an instance owning %v", s.group, o.env.KeyGroups)
			}
			lines = append(lines, fmt.Sprintf("%d %x %x saved %x dirty %v", s.group, st.partOf(s), st.keyOf(s), st.savedOf(s), bitset.Has(o.dedup.bits, id)))
		})
	} else {
		s := &o.snap
		s.parts = o.parts.Keys()
		slices.Sort(s.parts)
		if err := o.partGroups(); err != nil {
			t.Fatal(err)
		}
		for i, pk := range s.parts {
			if !o.env.KeyGroups.Contains(s.groups[i]) {
				t.Errorf("a partition of key group %d in an instance owning %v", s.groups[i], o.env.KeyGroups)
			}
			_ = o.parts.Get(pk).Tree.Each(func(e *ordtree.Entry) error {
				lines = append(lines, fmt.Sprintf("%d %x %x %d", s.groups[i], pk, e.Key.S, e.N))
				return nil
			})
		}
		s.parts = s.parts[:0]
	}
	slices.Sort(lines)
	lines = append(lines, fmt.Sprintf("gauge %+v, tracking %v, %d changes, written %v, %d dirty",
		o.parts.Gauge, o.changes.Tracking(), o.changes.Len(), o.dedup.written, len(o.dedup.dirty)))
	return strings.Join(lines, "\n")
}
