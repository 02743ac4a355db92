package sessionwin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// moveCases are the keyed configurations the move test runs: gaps short
// and long against the rows' spread, one key column or two, -0 and 0 as
// one key.
var moveCases = []struct {
	name    string
	input   string
	keys    []int
	timeCol int
	gap     int64
	key     func(r *rand.Rand) string // the key columns of a row
}{
	{"string-key/gap=10", "varchar timestamp(3) bigint double", []int{0}, 1, 10, func(r *rand.Rand) string {
		return []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "''", "NULL"}[r.IntN(12)]
	}},
	{"double-key/gap=3", "double timestamp(3) bigint double", []int{0}, 1, 3, func(r *rand.Rand) string {
		return []string{"-0", "0", "1.5", "-2.25", "7", "NULL"}[r.IntN(6)]
	}},
	{"two-keys/gap=40", "bigint varchar timestamp(3) bigint double", []int{0, 1}, 2, 40, func(r *rand.Rand) string {
		return fmt.Sprintf("%d %s", r.IntN(5), []string{"x", "y", "NULL"}[r.IntN(3)])
	}},
}

// TestSessionAdoptGroupsEqualsRestore runs every keyed configuration, in
// running and EMIT ON WINDOW CLOSE mode, over 4 random inputs through two
// fleets of SESSION instances that change parallelism 1 → 2 → 3 → 1 →
// 4 → 2 at checkpoints (exectest.CheckMoves): one moves by AdoptGroups,
// the other by a full restore. After every move an adopting instance must
// hold what its twin holds (dumpSession), have read only the key groups
// it gained, and both fleets must emit the same rows and write the same
// entries at every later checkpoint.
func TestSessionAdoptGroupsEqualsRestore(t *testing.T) {
	for _, tc := range moveCases {
		for _, eoc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/emit-on-close=%t", tc.name, eoc), func(t *testing.T) {
				n := len(strings.Fields(tc.input))
				cfg := testConfig(t, tc.input, tc.keys, tc.timeCol, tc.gap, "count(*)",
					fmt.Sprintf("sum(%d)", n-2), fmt.Sprintf("avg(%d)", n-1), fmt.Sprintf("min(%d)", n-2),
					fmt.Sprintf("max(%d)", n-1), fmt.Sprintf("count(distinct %d)", n-2), fmt.Sprintf("sum(distinct %d)", n-1))
				cfg.EmitOnClose = eoc
				for seed := range uint64(4) {
					steps := moveSteps(rand.New(rand.NewPCG(seed, 12)), tc.input, tc.key)
					m := exectest.CheckMoves(t, exectest.Moves{
						New:         exectest.Maker(t, func() (*Agg, error) { return NewAgg(cfg) }),
						Steps:       steps,
						Keys:        [][]int{cfg.GroupKeys},
						Parallelism: []int{1, 2, 3, 1, 4, 2},
						Dump:        dumpSession,
						Options:     exectest.CollectorOptions{Format: exectest.Millis},
					})
					if m.Entries >= m.RestoredEntries || m.Adopted == 0 {
						t.Fatalf("adopting read %d entries, restoring %d; %d adopted", m.Entries, m.RestoredEntries, m.Adopted)
					}
				}
			})
		}
	}
}

// moveSteps returns 72 random steps of input (the key columns key
// returns, the time, a bigint and a double): chunks of rows around the
// watermark, some behind it (which then open sessions of their own),
// watermarks that advance and close sessions, and end of input last.
func moveSteps(r *rand.Rand, input string, key func(*rand.Rand) string) []exectest.Step {
	var steps []exectest.Step
	wm := int64(0)
	for k := range 71 {
		if k%4 == 3 {
			wm += int64(r.IntN(20))
			steps = append(steps, exectest.Step{Ctl: exectest.Watermark(wm)})
			continue
		}
		lines := []string{input}
		for range 1 + r.IntN(10) {
			ts := fmt.Sprint(wm + int64(r.IntN(50)) - 8) // some late
			if r.IntN(20) == 0 {
				ts = "NULL"
			}
			v, f := fmt.Sprint(r.IntN(7)-3), fmt.Sprint(float64(r.IntN(9))/4)
			if r.IntN(6) == 0 {
				v = "NULL"
			}
			lines = append(lines, strings.Join([]string{"+I", key(r), ts, v, f}, " "))
		}
		steps = append(steps, exectest.Step{In: strings.Join(lines, "\n")})
	}
	return append(steps, exectest.Step{Ctl: exectest.Control(exec.EndOfInput)})
}

// dumpSession renders the state of a SESSION instance: each group key
// with its key group (recomputed from its values, as a snapshot computes
// it), the entry a snapshot would write for it (its -0 keys, sessions,
// creation numbers, row counts and accumulator states), its flags, and
// each session's bounds, emitted mark and place in the close heap; then
// the creation counter, the counts of sessions, slots and heap entries,
// the key memory and what the delta holds. It fails t for a group outside
// the instance's key groups, or a broken heap (checkState).
func dumpSession(t *testing.T, op exec.Operator) string {
	t.Helper()
	w := op.(*Agg)
	checkState(t, w)
	gs := make([]*keyGroup, 0, len(w.groups))
	for _, g := range w.groups {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *keyGroup) int { return strings.Compare(a.mapKey, b.mapKey) })
	shadow := make([]*keyGroup, len(gs))
	for i, g := range gs {
		shadow[i] = &keyGroup{key: g.key}
	}
	if err := w.keyGroups(shadow); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sessions := 0
	for i, g := range gs {
		if kg := int(shadow[i].kg); kg != int(g.kg) || !w.env.KeyGroups.Contains(kg) {
			t.Errorf("group %v of key group %d (recorded %d) in an instance owning %v", g.key, kg, g.kg, w.env.KeyGroups)
		}
		entry, err := w.appendGroup(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%d %x %v stored %v dirty %v: %x", g.kg, g.mapKey, g.key, g.stored, g.dirty, entry)
		for _, s := range g.open {
			sessions++
			line += fmt.Sprintf("\n  [%d, %d] #%d emitted %v closeAt %d", s.start, s.last, s.seq, s.emitted, s.closeAt)
		}
		lines = append(lines, line)
	}
	d := &w.delta
	lines = append(lines, fmt.Sprintf("seq %d, %d sessions, %d slots, %d in the heap, key bytes %d; tracking %v, %d dirty, %d deletions",
		w.seq, sessions, w.slots.Live(), len(w.heap), w.keyBytes, d.track, len(d.groups), len(d.delEnds)))
	return strings.Join(lines, "\n")
}

// TestSessionAdoptGroupsRefuses checks that AdoptGroups reports false and
// leaves both instances as they were for an old instance that is not a
// SESSION aggregate, one configured otherwise, one with changes since
// its last snapshot (or never snapshotted), and a SESSION without group
// keys whose one group is not in the new instance's first key group; and
// that it adopts the same instance once snapshotted.
func TestSessionAdoptGroupsRefuses(t *testing.T) {
	const input = "varchar timestamp(3) bigint"
	keyed := testConfig(t, input, []int{0}, 1, 10, "count(*)", "sum(2)")
	other := keyed
	other.Gap = 20
	global := testConfig(t, input, nil, 1, 10, "count(*)", "sum(2)")
	ctx := context.Background()
	alloc := exectest.Alloc(t)
	open := func(cfg Config, i, p int, rows string) *Agg {
		w, err := NewAgg(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Open(ctx, exectest.InstanceEnv(alloc, i, p, nil)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		if rows != "" {
			ch := exectest.Chunk(t, alloc, input+"\n"+rows)
			defer ch.Batch.Release()
			discard := exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
				c.Batch.Release()
				return nil
			})
			if err := w.Process(ctx, 0, ch, discard); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	snapshot := func(w *Agg) *exectest.State {
		s := exectest.NewState()
		if err := w.Snapshot(ctx, 1, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	rows := "+I a 0 1\n+I b 5 2\n+I c 30 3"
	adopt := func(w *Agg, old exec.Operator, held exec.KeyGroupRange, s *exectest.State) bool {
		t.Helper()
		ok, err := w.AdoptGroups(ctx, old, held, s)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	old := open(keyed, 0, 1, rows)
	if adopt(open(keyed, 0, 2, ""), old, exec.KeyGroupsOf(0, 1), exectest.NewState()) {
		t.Error("adopted an instance never snapshotted")
	}
	s := snapshot(old)
	if adopt(open(keyed, 0, 2, ""), open(global, 0, 1, ""), exec.KeyGroupsOf(0, 1), s) {
		t.Error("adopted an instance configured otherwise")
	}
	if adopt(open(other, 0, 2, ""), old, exec.KeyGroupsOf(0, 1), s) {
		t.Error("adopted an instance of another gap")
	}
	if adopt(open(keyed, 0, 2, ""), exec.Operator(nil), exec.KeyGroupsOf(0, 1), s) {
		t.Error("adopted nothing")
	}
	dirty := open(keyed, 0, 1, rows)
	snapshot(dirty)
	ch := exectest.Chunk(t, alloc, input+"\n+I a 3 1")
	defer ch.Batch.Release()
	if err := dirty.Process(ctx, 0, ch, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
		c.Batch.Release()
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	if adopt(open(keyed, 0, 2, ""), dirty, exec.KeyGroupsOf(0, 1), s) {
		t.Error("adopted an instance changed since its snapshot")
	}
	if len(old.groups) != 3 || len(old.heap) != 3 {
		t.Fatalf("a refusal changed the old instance: %d groups, %d sessions in the heap", len(old.groups), len(old.heap))
	}

	g := open(global, 1, 2, rows)
	gs := snapshot(g)
	if adopt(open(global, 0, 1, ""), g, exec.KeyGroupsOf(1, 2), gs) {
		t.Error("adopted a group without keys from another first key group")
	}
	g = open(global, 0, 2, rows)
	gs = snapshot(g)
	w := open(global, 0, 3, "")
	if !adopt(w, g, exec.KeyGroupsOf(0, 2), gs) || len(w.groups) != 1 || len(w.heap) != 2 {
		t.Errorf("a group without keys in the same first key group: adopted with %d groups, %d sessions", len(w.groups), len(w.heap))
	}
	w = open(keyed, 0, 2, "")
	if !adopt(w, old, exec.KeyGroupsOf(0, 1), s) {
		t.Fatal("refused a snapshotted instance configured alike")
	}
	if old.groups != nil || old.heap != nil {
		t.Error("the old instance still holds its state")
	}
}
