package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// route splits rows among p instances as the hash exchange on the key
// does: by the key group of exec.HashRows over the key columns.
func route(t *testing.T, in *instance, rows []row, p int) [][]row {
	t.Helper()
	out := make([][]row, p)
	if len(rows) == 0 {
		return out
	}
	c := chunkOf(in.env.Alloc, rows)
	defer c.Batch.Release()
	hashes := make([]uint64, len(rows))
	if err := exec.HashRows([]arrow.Array{c.Batch.Column(0), c.Batch.Column(1)}, hashes); err != nil {
		t.Fatal(err)
	}
	for i, h := range hashes {
		k := exec.InstanceForKeyGroup(exec.KeyGroup(h), p)
		out[k] = append(out[k], rows[i])
	}
	return out
}

// TestDedupRestoreContinuesTheRun snapshots a random run (incrementally,
// several times) at a random step, restores the last snapshot into fresh
// instances at parallelism 1 and 2, each restoring its key groups and fed
// the rows the exchange routes to it, and checks that they keep exactly
// the rows the uninterrupted run keeps after the snapshot: keys seen
// before it are still duplicates, and buckets expire as before.
func TestDedupRestoreContinuesTheRun(t *testing.T) {
	for _, eventTime := range []bool{false, true} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("event=%v/seed=%d", eventTime, seed), func(t *testing.T) {
				alloc := exectest.Alloc(t)
				const window, steps = 1000, 120
				cfg := testConfig(window, eventTime)
				g := &generator{r: rand.New(rand.NewPCG(seed, 11)), window: window, eventTime: eventTime, dupRate: 0.05,
					now: 1_700_000_000_000, lateness: 300}
				type step struct {
					rows  []row
					now   int64
					wm    int64
					kept  []string
					state *exectest.State
				}
				var run []step
				clock := g.now
				whole := newInstance(t, alloc, cfg, &clock, 0, 1)
				state := exectest.NewState()
				at := 20 + g.r.IntN(steps-40)
				for i := range steps {
					clock = g.now
					st := step{rows: g.batch(1+g.r.IntN(100), g.r.Int64N(60)), now: clock}
					st.kept = sortedStrings(whole.feed(t, st.rows))
					if eventTime {
						g.wm = max(g.wm, g.now-g.lateness)
						st.wm = g.wm
						whole.watermark(t, g.wm)
					}
					if i%7 == 3 && i <= at {
						state.Snapshot(t, whole.op, uint64(i))
					}
					if i == at {
						state.Snapshot(t, whole.op, uint64(i))
					}
					run = append(run, st)
				}
				for _, p := range []int{1, 2} {
					insts := make([]*instance, p)
					for k := range p {
						insts[k] = newInstance(t, alloc, cfg, &clock, k, p)
						if err := insts[k].op.Restore(context.Background(), state, exec.KeyGroupsOf(k, p)); err != nil {
							t.Fatal(err)
						}
					}
					for i, st := range run[at+1:] {
						clock = st.now
						var got []row
						for k, rows := range route(t, insts[0], st.rows, p) {
							got = append(got, insts[k].feed(t, rows)...)
							if eventTime {
								insts[k].watermark(t, st.wm)
							}
						}
						if s := sortedStrings(got); !slices.Equal(s, st.kept) {
							t.Fatalf("p=%d, step %d after the restore: kept\n%v\nwant\n%v", p, i+1, s, st.kept)
						}
					}
				}
			})
		}
	}
}

// TestDedupSnapshotIsIncremental checks that a snapshot writes the keys
// added since the last one and deletes the written keys whose bucket
// expired, and nothing else; keys added and expired between two snapshots
// are never written.
func TestDedupSnapshotIsIncremental(t *testing.T) {
	alloc := exectest.Alloc(t)
	clock := int64(0)
	in := newInstance(t, alloc, testConfig(800, true), &clock, 0, 1)
	batch := func(first, n int, ts int64) []row {
		rows := make([]row, n)
		for i := range rows {
			rows[i] = row{id: int64(first + i), name: "x", ts: ts}
		}
		return rows
	}
	in.feed(t, batch(0, 10_000, 1000))
	state := exectest.NewState()
	state.Snapshot(t, in.op, 1)
	full := state.Bytes
	if state.Puts != 10_000 || state.Deletes != 0 || state.Len() != 10_000 {
		t.Fatalf("first snapshot: %d puts, %d deletes, %d entries", state.Puts, state.Deletes, state.Len())
	}
	in.feed(t, batch(10_000, 100, 1500))
	in.feed(t, batch(0, 100, 1600)) // repeats: nothing new
	state.Snapshot(t, in.op, 2)
	if state.Puts != 100 || state.Deletes != 0 || state.Bytes*50 > full {
		t.Fatalf("second snapshot: %d puts (want 100), %d deletes, %d bytes of %d", state.Puts, state.Deletes, state.Bytes, full)
	}
	in.feed(t, batch(20_000, 50, 1700))
	in.watermark(t, 1099+800) // [1000, 1100) expires
	state.Snapshot(t, in.op, 3)
	if state.Puts != 50 || state.Deletes != 10_000 || state.Len() != 150 {
		t.Fatalf("third snapshot: %d puts (want 50), %d deletes (want 10000), %d entries (want 150)", state.Puts, state.Deletes, state.Len())
	}
	in.feed(t, batch(30_000, 30, 1750))
	in.watermark(t, 1799+800) // every bucket expires
	state.Snapshot(t, in.op, 4)
	if state.Puts != 0 || state.Deletes != 150 || state.Len() != 0 {
		t.Fatalf("fourth snapshot: %d puts, %d deletes (want 150), %d entries", state.Puts, state.Deletes, state.Len())
	}
}

// TestDedupRestoreRefusesDamagedState checks that damaged entries — a bad
// value, a key that does not decode, a key in another key group — fail
// Restore with an error wrapping errRestore, and never panic.
func TestDedupRestoreRefusesDamagedState(t *testing.T) {
	alloc := exectest.Alloc(t)
	clock := int64(0)
	in := newInstance(t, alloc, testConfig(1000, true), &clock, 0, 1)
	in.feed(t, []row{{id: 1, name: "a", ts: 10}, {id: 2, null: true, ts: 20}})
	state := exectest.NewState()
	state.Snapshot(t, in.op, 1)
	exectest.CheckDamaged(t, exectest.Damaged{OpenFirst: true,
		New:   exectest.Maker(t, func() (*Operator, error) { return New(testConfig(1000, true)) }),
		State: state, Wrap: errRestore,
		Damages: []exectest.Damage{
			{Name: "value", Edit: func(s *exectest.State) { s.Damage([]byte("garbage")) }},
			{Name: "truncated key", Edit: func(s *exectest.State) {
				for g, m := range s.Entries {
					for k, v := range m {
						delete(m, k)
						m[k[:len(k)-3]] = v
					}
					s.Entries[g] = m
				}
			}},
			{Name: "bad string length", Edit: func(s *exectest.State) {
				for _, m := range s.Entries {
					for k, v := range m {
						b := []byte(k)
						if len(b) > 10 && b[9] == 1 {
							b[10] = 200
							delete(m, k)
							m[string(b)] = v
						}
					}
				}
			}},
			{Name: "other key group", Edit: func(s *exectest.State) {
				for g, m := range s.Entries {
					delete(s.Entries, g)
					s.Entries[(g+1)%exec.NumKeyGroups] = m
				}
			}},
		},
	})
}
