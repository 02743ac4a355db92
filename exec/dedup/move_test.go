package dedup

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestAdoptGroupsEqualsRestore runs random input with repeats, in event
// and processing time and with short and long windows, through two fleets
// of dedup instances that change parallelism 1 → 2 → 3 → 1 → 4 → 2 at
// checkpoints (exectest.CheckMoves): one moves by AdoptGroups, the other
// by a full restore. After every move an adopting instance must hold what
// its twin holds — the same entries, the same buckets with the same
// filters, bit for bit (dumpDedup) — and have read only the key groups it
// gained; both fleets must keep the same rows and write the same entries
// at every later checkpoint.
func TestAdoptGroupsEqualsRestore(t *testing.T) {
	for _, eventTime := range []bool{false, true} {
		for _, window := range []int64{150, 2000} {
			t.Run(fmt.Sprintf("event=%v/window=%d", eventTime, window), func(t *testing.T) {
				cfg := testConfig(window, eventTime)
				for seed := range uint64(4) {
					g := &generator{r: rand.New(rand.NewPCG(seed, 13)), window: window, eventTime: eventTime, dupRate: 0.2,
						now: 1_700_000_000_000, lateness: 300}
					var steps []exectest.Step
					var clocks []int64
					for range 48 {
						clocks = append(clocks, g.now)
						steps = append(steps, exectest.Step{In: chunkText(g.batch(1+g.r.IntN(40), g.r.Int64N(60)))})
						if eventTime {
							g.wm = max(g.wm, g.now-g.lateness)
							clocks = append(clocks, g.now)
							steps = append(steps, exectest.Step{Ctl: exectest.Watermark(g.wm)})
						}
					}
					clock := clocks[0]
					n := exectest.CheckMoves(t, exectest.Moves{
						New:         exectest.Maker(t, func() (*Operator, error) { return New(cfg) }),
						Steps:       steps,
						Keys:        [][]int{cfg.Keys},
						Parallelism: []int{1, 2, 3, 1, 4, 2},
						Dump:        dumpDedup,
						Clock:       func() time.Time { return time.UnixMilli(clock) },
						Before:      func(k int) { clock = clocks[k] },
					})
					if n.Entries >= n.RestoredEntries || n.Adopted == 0 {
						t.Fatalf("adopting read %d entries, restoring %d", n.Entries, n.RestoredEntries)
					}
				}
			})
		}
	}
}

// chunkText renders rows as a chunk's text.
func chunkText(rows []row) string {
	lines := []string{"bigint varchar timestamp(3)"}
	for _, r := range rows {
		name, ts := r.name, fmt.Sprint(r.ts)
		if r.null {
			name = "NULL"
		} else if name == "" {
			name = "''"
		}
		if r.noTime {
			ts = "NULL"
		}
		lines = append(lines, fmt.Sprintf("+I %d %s %s", r.id, name, ts))
	}
	return strings.Join(lines, "\n")
}

// dumpDedup renders the state of a dedup instance: every live entry (key
// group, key, time, flags), every live bucket (number, entries, filter
// size and a digest of its bits), the sizes, the delta, and the
// watermark and processing time. It fails t for an entry outside the
// instance's key groups.
func dumpDedup(t *testing.T, op exec.Operator) string {
	t.Helper()
	o := op.(*Operator)
	var lines []string
	for id := range o.set.entries {
		e := &o.set.entries[id]
		if e.flags&live == 0 {
			continue
		}
		g := exec.KeyGroup(e.hash)
		if !o.env.KeyGroups.Contains(g) {
			t.Errorf("an entry of key group %d in an instance owning %v", g, o.env.KeyGroups)
		}
		lines = append(lines, fmt.Sprintf("%d %x %d %b bucket %d", g, o.keyOf(e), e.time, e.flags, o.bkt.pool[e.bucket].num))
	}
	slices.Sort(lines)
	for _, bi := range o.bkt.live {
		b := &o.bkt.pool[bi]
		bits, err := b.filter.GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("bucket %d: %d entries, %d key bytes, cap %d, filter %x", b.num, len(b.entries), len(b.keys), b.cap, sha256.Sum256(bits)))
	}
	lines = append(lines, fmt.Sprintf("%d keys, %d key bytes, %d filter bytes, %d added, %d deleted, now %d, wm %d",
		o.set.idx.Len(), o.bkt.keyBytes, o.bkt.filterBytes, len(o.d.added), len(o.d.delEnds), o.now, o.wm))
	return strings.Join(lines, "\n")
}
