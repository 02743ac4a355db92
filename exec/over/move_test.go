package over

import (
	"fmt"
	"math/bits"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// TestAdoptGroupsEqualsRestore runs random changelogs through two fleets
// of window aggregates — every frame kind, with aggregates and with the
// window functions, DENSE_RANK's and GROUPS' peer-group trees among them
// — that change parallelism 1 → 2 → 3 → 1 → 4 → 2 at checkpoints
// (exectest.CheckMoves): one moves by AdoptGroups, the other by a full
// restore. After every move an adopting instance must hold what its twin
// holds (dumpOver), have read only the key groups it gained, and both
// fleets must emit the same rows and write the same entries at every
// later checkpoint.
func TestAdoptGroupsEqualsRestore(t *testing.T) {
	const input = "bigint bigint bigint double varchar"
	cases := []struct {
		frame plan.Frame
		aggs  string
		funcs string
	}{
		{plan.Frame{Kind: plan.FrameRows, Preceding: 2}, "count *, sum 2, avg 3, min 4", ""},
		{plan.Frame{Kind: plan.FrameRowsUnbounded}, "max 3, sum 3", "row_number"},
		{plan.Frame{Kind: plan.FramePeers}, "count 2", "rank, dense_rank"},
		{plan.Frame{Kind: plan.FramePartition}, "sum 2, min 3", ""},
		{plan.Frame{Kind: plan.FrameRows}, "count *", "lag 2 1, lead 4 1, percent_rank, ntile 3"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 1, Following: 1, Groups: true}, "sum 2", "first_value 2"},
		{plan.Frame{Kind: plan.FramePeersToEnd}, "count *", "dense_rank, cume_dist"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.frame, c.aggs, c.funcs), func(t *testing.T) {
			order := "1 desc"
			if c.frame.Kind == plan.FramePartition {
				order = ""
			}
			cfg := config(t, input, []int{0}, order, c.frame, c.aggs)
			if c.funcs != "" {
				cfg = withFuncs(t, cfg, c.funcs)
			}
			for seed := int64(1); seed <= 4; seed++ {
				rng := rand.New(rand.NewSource(seed))
				n := exectest.CheckMoves(t, exectest.Moves{
					New:         exectest.Maker(t, func() (*Agg, error) { return New(cfg) }),
					Steps:       randomSteps(rng, 36, 10, 12),
					Keys:        [][]int{cfg.Partition},
					Parallelism: []int{1, 2, 3, 1, 4, 2},
					Dump:        dumpOver,
					Options:     exectest.CollectorOptions{Minimal: true, Exact: true},
				})
				if n.Entries >= n.RestoredEntries {
					t.Fatalf("adopting read %d entries, restoring %d", n.Entries, n.RestoredEntries)
				}
			}
		})
	}
}

// dumpOver renders the state of a window aggregate: every partition (by
// key, with its key group) with its rows (sort key, copies, ORDER BY
// prefix length and the values stored), its peer groups, the gauges and
// what the next snapshot writes. It fails t for a partition outside the
// instance's key groups.
func dumpOver(t *testing.T, op exec.Operator) string {
	t.Helper()
	o := op.(*Agg)
	keys := o.parts.Keys()
	slices.Sort(keys)
	var lines []string
	for _, pk := range keys {
		p := o.parts.Get(pk)
		var ids []int32
		_ = p.Tree.Each(func(e *ordtree.Entry) error { ids = append(ids, e.ID); return nil })
		rows := make([][]types.Datum, len(ids))
		for j := range o.cfg.Input {
			col := o.store.Gather(o.env.Alloc, j, ids)
			for i := range ids {
				rows[i] = append(rows[i], types.DatumAt(col, i, o.cfg.Input[j]))
			}
			col.Release()
		}
		g := o.env.KeyGroups.Lo
		if len(o.cfg.Partition) > 0 {
			g = exec.KeyGroup(exectest.HashRow(t, rows[0], o.cfg.Input, o.cfg.Partition))
		}
		if !o.env.KeyGroups.Contains(g) {
			t.Errorf("a partition of key group %d in an instance owning %v", g, o.env.KeyGroups)
		}
		lines = append(lines, fmt.Sprintf("partition %x group %d", pk, g))
		i := 0
		_ = p.Tree.Each(func(e *ordtree.Entry) error {
			if !hasBit(o.ck.inUse, e.ID) || hasBit(o.ck.bits, e.ID) {
				t.Errorf("row %d: in use %v, changed %v", e.ID, hasBit(o.ck.inUse, e.ID), hasBit(o.ck.bits, e.ID))
			}
			lines = append(lines, fmt.Sprintf("  %x x%d olen %d %s", e.Key.S, e.N, e.OLen, exectest.FormatRow(rows[i], o.cfg.Input, exectest.Text)))
			i++
			return nil
		})
		if g := o.groups[p]; g != nil {
			_ = g.Each(func(e *ordtree.Entry) error {
				lines = append(lines, fmt.Sprintf("  group %x x%d olen %d", e.Key.S, e.N, e.OLen))
				return nil
			})
		}
	}
	inUse := 0
	for _, w := range o.ck.inUse {
		inUse += bits.OnesCount64(w)
	}
	lines = append(lines, fmt.Sprintf("gauge %+v, groups %+v (%d trees), %d rows stored, %d ids in use, written %v, %d changed, %d deletions",
		o.parts.Gauge, o.groupGauge, len(o.groups), o.store.Live(), inUse, o.ck.written, len(o.ck.ids), len(o.ck.delEnds)))
	return strings.Join(lines, "\n")
}

// hasBit reports whether bit id is set in bits.
func hasBit(bits []uint64, id int32) bool {
	return int(id>>6) < len(bits) && bits[id>>6]&(1<<(id&63)) != 0
}
