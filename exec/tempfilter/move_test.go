package tempfilter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestAdoptGroupsEqualsRestore feeds random inserts and retractions of
// rows around NOW(), the clock moving on at every step, through two
// fleets of temporal filters (expiring and delaying) that change
// parallelism 1 → 2 → 3 → 1 → 4 → 2 at checkpoints (exectest.CheckMoves):
// one moves by AdoptGroups, the other by a full restore. For odd seeds
// the clock stops halfway, so that NOW() stays as restored across moves.
// An instance
// whose groups may hold different NOW()s (delta.nowEverywhere unset) must
// refuse; every other must adopt. After every move an adopting instance
// must hold what its twin holds (dumpFilter) and have read only the key
// groups it gained; both fleets must emit the same rows and write the
// same entries at every later checkpoint.
func TestAdoptGroupsEqualsRestore(t *testing.T) {
	for _, cfg := range []Config{testConfig(false), testConfig(true), delayConfig(false)} {
		t.Run(fmt.Sprintf("delay=%v/inclusive=%v", cfg.Delay, cfg.Inclusive), func(t *testing.T) {
			adopted, fallbacks := 0, 0
			for seed := range uint64(6) {
				r := rand.New(rand.NewPCG(seed, 31))
				ms := int64(1_700_000_000_000)
				var clocks []int64
				var steps []exectest.Step
				var held []string
				for range 48 {
					lines := []string{"bigint timestamp(3)"}
					for range 1 + r.IntN(12>>(2*(seed%2))) { // odd seeds: few rows, so that instances' NOW()s differ
						if len(held) > 0 && r.IntN(5) == 0 {
							i := r.IntN(len(held))
							lines = append(lines, "-D "+held[i])
							held = slices.Delete(held, i, i+1)
							continue
						}
						row := fmt.Sprintf("%d %d", r.IntN(60), ms-1200+r.Int64N(1500))
						lines = append(lines, "+I "+row)
						held = append(held, row)
					}
					clocks = append(clocks, ms)
					steps = append(steps, exectest.Step{In: strings.Join(lines, "\n")})
					if seed%2 == 0 || len(steps) < 24 {
						ms += r.Int64N(150) // odd seeds: the clock stops halfway
					}
				}
				now := clocks[0]
				n := exectest.CheckMoves(t, exectest.Moves{
					New:         exectest.Maker(t, func() (*Filter, error) { return New(cfg) }),
					Steps:       steps,
					Keys:        [][]int{{0, 1}},
					Parallelism: []int{1, 2, 3, 1, 4, 2},
					Dump:        dumpFilter,
					Fallback:    func(op exec.Operator) bool { return !op.(*Filter).delta.nowEverywhere },

					Clock:  func() time.Time { return time.UnixMilli(now) },
					Before: func(k int) { now = clocks[k] },
				})
				adopted, fallbacks = adopted+n.Adopted, fallbacks+n.Fallbacks
			}
			t.Logf("%d instances adopted, %d fell back", adopted, fallbacks)
			if adopted == 0 {
				t.Fatal("no instance adopted")
			}
		})
	}
}

// dumpFilter renders the state of a temporal filter: every row kept (key
// group, key, count, expiry), the heap's size, NOW() and the delta. It
// fails t for a row outside the instance's key groups or a heap that does
// not hold exactly the rows.
func dumpFilter(t *testing.T, op exec.Operator) string {
	t.Helper()
	f := op.(*Filter)
	var lines []string
	for _, e := range f.rows {
		if !f.env.KeyGroups.Contains(int(e.group)) {
			t.Errorf("a row of key group %d in an instance owning %v", e.group, f.env.KeyGroups)
		}
		if int(e.pos) >= len(f.heap) || f.heap[e.pos] != e {
			t.Errorf("row %x is not in the heap at %d", e.key, e.pos)
		}
		lines = append(lines, fmt.Sprintf("%d %x x%d expires %d", e.group, e.key, e.count, e.expiry))
	}
	slices.Sort(lines)
	d := &f.delta
	lines = append(lines, fmt.Sprintf("%d rows, heap %d, %d bytes, now %d, tracking %v, %d dirty, %d gone, now changed %v",
		len(f.rows), len(f.heap), f.bytes, f.now, d.tracking, len(d.dirty), len(d.gone), d.nowChanged))
	return strings.Join(lines, "\n")
}
