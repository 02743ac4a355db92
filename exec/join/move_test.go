package join

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// moveCase is a join configuration and how to make its input.
type moveCase struct {
	name  string
	cfg   Config
	steps func(rng *rand.Rand) []step
	opts  exectest.CollectorOptions
}

// moveCases are the joins TestHashJoinAdoptGroupsEqualsRestore moves:
// every kind of regular join over random changelogs (with a residual
// condition), with a state TTL, interval joins of every kind over
// append-only inputs, an inner one over retracting inputs, and lookup
// joins of an append-only stream.
func moveCases() []moveCase {
	var cases []moveCase
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}
	changelog := func(rng *rand.Rand) []step { return changelogSteps(rng, 120) }
	for _, kind := range kinds {
		cases = append(cases, moveCase{name: "regular/" + kind.String(), cfg: stateConfig(kind, true, false), steps: changelog})
	}
	for _, kind := range kinds {
		cfg := stateConfig(kind, false, false)
		cfg.StateTTL = time.Second
		cases = append(cases, moveCase{name: "ttl/" + kind.String(), cfg: cfg, steps: changelog})
	}
	millis := exectest.CollectorOptions{Format: exectest.Millis}
	for _, kind := range kinds[:4] {
		cases = append(cases, moveCase{name: "interval/" + kind.String(), cfg: intervalConfig(kind, -3, 2),
			steps: func(rng *rand.Rand) []step { return appendOnlyTimedSteps(rng, 140) }, opts: millis})
	}
	cases = append(cases, moveCase{name: "interval/retracting", cfg: intervalConfig(plan.InnerJoin, -3, 3),
		steps: func(rng *rand.Rand) []step { return retractingSteps(rng, 140, -3, 3) }, opts: millis})
	for _, kind := range kinds[:2] {
		cfg := stateConfig(kind, false, false)
		cfg.Lookup = true
		cases = append(cases, moveCase{name: "lookup/" + kind.String(), cfg: cfg,
			steps: func(rng *rand.Rand) []step { return appendOnlyLeft(changelog(rng)) }})
	}
	return cases
}

// appendOnlyTimedSteps returns n chunks of (key, time) rows on random
// sides, their times a few ms after their chunk's (now and then a late
// one), with a watermark every seven chunks and the end of time last.
func appendOnlyTimedSteps(rng *rand.Rand, n int) []step {
	var steps []step
	now := int64(100)
	for i := range n {
		s := step{in: rng.IntN(2)}
		for k := 1 + rng.IntN(3); k > 0; k-- {
			key := types.IntDatum(int64(rng.IntN(6)))
			if rng.IntN(10) == 0 {
				key = types.NullDatum
			}
			at := now + int64(rng.IntN(5))
			if rng.IntN(15) == 0 {
				at = now - 6
			}
			s.rows = append(s.rows, []types.Datum{key, types.IntDatum(at)})
		}
		steps = append(steps, s)
		now++
		if i%7 == 6 {
			steps = append(steps, step{ctl: &exec.Control{Kind: exec.Watermark, Watermark: now - 2}})
		}
	}
	return append(steps, step{ctl: &exec.Control{Kind: exec.Watermark, Watermark: exec.MaxWatermark}})
}

// TestHashJoinAdoptGroupsEqualsRestore runs every moveCase through two
// fleets of instances that change parallelism 1 → 2 → 3 → 1 → 4 → 2 at
// checkpoints: one moves by AdoptGroups (a new instance takes over the
// old instance whose key groups overlap its own most and reads only the
// groups it gains), the other by a full Restore of each new instance's
// key groups. After every move each instance of the first must hold
// exactly the state of its twin of the second (both sides' rows with
// their key groups, entries, match counts and deadlines, the watermark,
// and nothing dirty), must have read only the groups it gained, and the
// twins must write the same entries at every later snapshot (the first
// one right after the move); both fleets must emit the same changes at
// every step (a TTL's clock moving on, and its timer firing, between
// steps) and their checkpoints must hold the same entries.
func TestHashJoinAdoptGroupsEqualsRestore(t *testing.T) {
	for _, tc := range moveCases() {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, 12))
				checkJoinMoves(t, tc, tc.steps(rng), []int{1, 2, 3, 1, 4, 2})
			}
		})
	}
}

// joinFleet is a join's instances at one parallelism, the checkpoint
// they write, and their output.
type joinFleet struct {
	c     *cluster
	state *exectest.State
	out   *exectest.Collector
}

// checkJoinMoves runs steps through the two fleets, moving them through
// the parallelisms ps at evenly spaced steps.
func checkJoinMoves(t *testing.T, tc moveCase, steps []step, ps []int) {
	t.Helper()
	ctx := context.Background()
	alloc := exectest.Alloc(t)
	now := time.UnixMilli(1_700_000_000_000)
	clock := func() time.Time { return now }
	newFleet := func() *joinFleet {
		return &joinFleet{state: exectest.NewState(), out: exectest.NewCollector(t, tc.opts)}
	}
	moved, restored := newFleet(), newFleet()
	open := func(f *joinFleet, p int) *cluster {
		c := &cluster{t: t, cfg: tc.cfg, alloc: alloc, out: f.out}
		for i := range p {
			env := exectest.InstanceEnv(alloc, i, p, clock)
			j := NewHashJoin(tc.cfg)
			exectest.Open(t, j, env)
			c.js, c.envs = append(c.js, j), append(c.envs, env)
		}
		return c
	}
	// snapshot has both fleets snapshot as epoch and checks that their
	// checkpoints agree, and with exact that each instance wrote what its
	// twin did. (Later, their writes may differ and still leave the same
	// entries: a retraction of one of two rows alike under one key, one
	// written and one not, removes the one first in their bucket.)
	snapshot := func(epoch uint64, what string, exact bool) {
		t.Helper()
		for i := range moved.c.js {
			var writes [2][]string
			for k, f := range []*joinFleet{moved, restored} {
				f.state.Reset()
				rec := &recordingWriter{st: f.state}
				if err := f.c.js[i].Snapshot(ctx, epoch, rec); err != nil {
					t.Fatal(err)
				}
				slices.Sort(rec.writes)
				writes[k] = rec.writes
			}
			if g, w := strings.Join(writes[0], "\n"), strings.Join(writes[1], "\n"); exact && g != w {
				t.Fatalf("%s: instance %d wrote\n%s\nits restored twin\n%s", what, i, g, w)
			}
		}
		if !maps.Equal(entryCounts(moved.state), entryCounts(restored.state)) {
			t.Fatalf("%s: the fleets' checkpoints differ", what)
		}
	}
	run := func(f *joinFleet, s step) {
		t.Helper()
		var err error
		if s.ctl != nil {
			err = f.c.control(*s.ctl)
		} else {
			err = f.c.send(s.in, s.rows, s.ops)
		}
		for i, j := range f.c.js {
			if err == nil && tc.cfg.StateTTL > 0 {
				err = j.OnTimer(ctx, now, f.out)
			}
			if err != nil {
				t.Fatalf("instance %d: %v", i, err)
			}
		}
	}
	caughtUp := step{ctl: &exec.Control{Kind: exec.CaughtUp, Input: 1}}
	var lastWM *exec.Control
	per := len(steps) / len(ps)
	for phase, p := range ps {
		if phase == 0 {
			moved.c, restored.c = open(moved, p), open(restored, p)
		} else {
			snapshot(uint64(2*phase), fmt.Sprintf("the checkpoint before move %d", phase), false)
			from := len(moved.c.js)
			match := matchByOverlap(from, p)
			mc, rc := open(moved, p), open(restored, p)
			for i := range p {
				h, r := mc.js[i], rc.js[i]
				if err := r.Restore(ctx, restored.state, rc.envs[i].KeyGroups); err != nil {
					t.Fatal(err)
				}
				read := &groupsRead{StateReader: moved.state}
				var held exec.KeyGroupRange
				if o := match[i]; o >= 0 {
					held = exec.KeyGroupsOf(o, from)
					ok, err := h.AdoptGroups(ctx, moved.c.js[o], held, read)
					if err != nil || !ok {
						t.Fatalf("move %d: instance %d adopting %d: %v, %v", phase, i, o, ok, err)
					}
				} else if err := h.Restore(ctx, read, mc.envs[i].KeyGroups); err != nil {
					t.Fatal(err)
				}
				if want := mc.envs[i].KeyGroups.Minus(held); !slices.Equal(read.ranges, want) {
					t.Fatalf("move %d: instance %d (held %v) read %v, want %v", phase, i, held, read.ranges, want)
				}
				if g, w := dumpJoin(t, h), dumpJoin(t, r); g != w {
					t.Fatalf("move %d (%d → %d): instance %d holds\n%s\nafter a full restore\n%s", phase, from, p, i, g, w)
				}
			}
			for _, f := range []*joinFleet{moved, restored} {
				for _, j := range f.c.js {
					j.Close()
				}
			}
			moved.c, restored.c = mc, rc
			snapshot(uint64(2*phase+1), fmt.Sprintf("the snapshot right after move %d", phase), true)
			if lastWM != nil {
				// Restarted sources send the last watermark again.
				run(moved, step{ctl: lastWM})
				run(restored, step{ctl: lastWM})
			}
		}
		if tc.cfg.Lookup {
			run(moved, caughtUp)
			run(restored, caughtUp)
		}
		end := (phase + 1) * per
		if phase == len(ps)-1 {
			end = len(steps)
		}
		for k := phase * per; k < end; k++ {
			now = now.Add(250 * time.Millisecond)
			run(moved, steps[k])
			run(restored, steps[k])
			if c := steps[k].ctl; c != nil && c.Kind == exec.Watermark {
				lastWM = c
			}
			if g, w := sortedLines(moved.out.Take()), sortedLines(restored.out.Take()); g != w {
				t.Fatalf("step %d at parallelism %d: moved instances emitted\n%s\nrestored ones\n%s", k, p, g, w)
			}
		}
	}
}

// recordingWriter writes to st and records every write, without the
// rows' identities.
type recordingWriter struct {
	st     *exectest.State
	writes []string
}

func (w *recordingWriter) Put(g int, key, value []byte) error {
	w.writes = append(w.writes, fmt.Sprintf("put %d %x %x", g, withoutIdentity(key), value))
	return w.st.Put(g, key, value)
}

func (w *recordingWriter) Delete(g int, key []byte) error {
	w.writes = append(w.writes, fmt.Sprintf("delete %d %x", g, withoutIdentity(key)))
	return w.st.Delete(g, key)
}

// withoutIdentity returns a row entry's key without the row's identity,
// a meta entry's whole. Rows alike under one join key are interchangeable:
// which of them a retraction removes depends on their order in their
// bucket, which a restore sets by identity and a run by arrival, so two
// equal states may name such rows differently (as a run and its restore
// do); everything else about an entry must agree.
func withoutIdentity(key []byte) []byte {
	if len(key) > 8 && key[0] != tagMeta {
		return key[:len(key)-8]
	}
	return key
}

// entryCounts counts the entries of st by key group, key without the
// identity, and value.
func entryCounts(st *exectest.State) map[string]int {
	out := map[string]int{}
	for g, entries := range st.Entries {
		for k, v := range entries {
			out[fmt.Sprintf("%d %x %x", g, withoutIdentity([]byte(k)), v)]++
		}
	}
	return out
}

// groupsRead records the ranges of key groups scanned.
type groupsRead struct {
	exec.StateReader
	ranges []exec.KeyGroupRange
}

func (r *groupsRead) Scan(ctx context.Context, groups exec.KeyGroupRange, fn func(group int, key, value []byte) error) error {
	r.ranges = append(r.ranges, groups)
	return r.StateReader.Scan(ctx, groups, fn)
}

// matchByOverlap pairs each of to new instances with the old instance (of
// from) its key groups overlap most, each old one at most once, or -1.
func matchByOverlap(from, to int) []int {
	match := make([]int, to)
	taken := make([]bool, from)
	for i := range match {
		match[i] = -1
		best := 0
		for o := range from {
			if ov := exec.KeyGroupsOf(i, to).Overlap(exec.KeyGroupsOf(o, from)); !taken[o] && ov > best {
				match[i], best = o, ov
			}
		}
		if match[i] >= 0 {
			taken[match[i]] = true
		}
	}
	return match
}

func sortedLines(text string) string {
	lines := strings.Split(text, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// dumpJoin renders the state of j: each side's rows — key group, entry
// key (without the identity), row, match count and deadline — sorted,
// whether each has its entry, then the watermarks, the pending stream
// rows and whether anything is dirty. It fails t if a row lies outside
// the key groups the instance owns, or its bucket lists it wrongly.
func dumpJoin(t *testing.T, j *HashJoin) string {
	t.Helper()
	var lines []string
	for in, s := range j.sides {
		deadline := map[int32]int64{}
		s.deadline.each(func(at int64, e deadlineEntry) {
			if s.current(e) {
				deadline[e.id] = at
			}
		})
		var ids []int32
		n := 0
		for b := range s.nbuckets {
			bk := s.buckets.Ref(b)
			if bk.n == 0 {
				continue
			}
			before := len(ids)
			ids = s.appendRows(b, ids)
			if int32(len(ids)-before) != bk.n {
				t.Errorf("side %d: a bucket of %d rows lists %d", in, bk.n, len(ids)-before)
			}
			for _, id := range ids[before:] {
				if s.bucketOf.At(id) != b {
					t.Errorf("side %d: row %d of bucket %d is listed under %d", in, id, b, s.bucketOf.At(id))
				}
			}
			n += int(bk.n)
		}
		if n != s.store.Live() {
			t.Errorf("side %d: %d rows in buckets, %d in the store", in, n, s.store.Live())
		}
		if len(ids) == 0 {
			continue
		}
		keyCols, err := j.keyHashes(s, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range keyCols {
			c.Release()
		}
		for k, id := range ids {
			g := j.groupOf(in, j.ck.hashes[k])
			if !j.env.KeyGroups.Contains(g) {
				t.Errorf("side %d: a row of key group %d in an instance owning %v", in, g, j.env.KeyGroups)
			}
			line := fmt.Sprintf("side %d group %d key %x row %x held %v", in, g, s.entryKey(id), s.store.AppendRow(nil, id), s.changes.Held(id))
			if s.counted {
				line += fmt.Sprint(" matches ", s.matches[id])
			}
			if at, ok := deadline[id]; ok {
				line += fmt.Sprint(" deadline ", at)
			} else if j.cfg.Windowed {
				line += " no deadline"
			}
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	ck := &j.ck
	lines = append(lines, fmt.Sprintf("watermark %d saved %d floor %d, waiting %v, %d pending chunks, clean %v",
		ck.wm, ck.savedWM, ck.floor, j.waiting, len(j.pending), j.sides[0].changes.Clean() && j.sides[1].changes.Clean()))
	return strings.Join(lines, "\n")
}

// TestHashJoinAdoptGroupsFallsBack checks the cases in which AdoptGroups
// reports false and leaves both instances alone: another operator or
// configuration, a broadcast join, a restore of another layout, a cross
// join moving groups, a change since the old instance's snapshot, and a
// lookup join holding stream rows.
func TestHashJoinAdoptGroupsFallsBack(t *testing.T) {
	ctx := context.Background()
	alloc := exectest.Alloc(t)
	open := func(cfg Config, i, p int, relayout bool) *HashJoin {
		env := exectest.InstanceEnv(alloc, i, p, nil)
		env.Relayout = relayout
		j := NewHashJoin(cfg)
		exectest.Open(t, j, env)
		return j
	}
	feed := func(j *HashJoin, in int, rows string) {
		ch := exectest.Chunk(t, alloc, "bigint bigint varchar\n"+rows)
		defer ch.Batch.Release()
		if err := j.Process(ctx, in, ch, exectest.NewCollector(t, exectest.CollectorOptions{})); err != nil {
			t.Fatal(err)
		}
	}
	inner := stateConfig(plan.InnerJoin, false, false)
	broadcast := inner
	broadcast.Broadcast = true
	adaptive := inner
	adaptive.Relayout = true
	lookup := inner
	lookup.Lookup = true
	cross := stateConfig(plan.InnerJoin, false, true)
	st := exectest.NewState()
	cases := []struct {
		name     string
		old, new func() *HashJoin
	}{
		{"another configuration", func() *HashJoin { return open(inner, 0, 1, false) },
			func() *HashJoin { return open(stateConfig(plan.LeftJoin, false, false), 0, 2, false) }},
		{"broadcast", func() *HashJoin { return open(broadcast, 0, 1, false) }, func() *HashJoin { return open(broadcast, 0, 2, false) }},
		{"another layout", func() *HashJoin { return open(adaptive, 0, 1, false) }, func() *HashJoin { return open(adaptive, 0, 2, true) }},
		{"cross join moving groups", func() *HashJoin { return open(cross, 0, 2, false) }, func() *HashJoin { return open(cross, 0, 1, false) }},
		{"dirty", func() *HashJoin {
			j := open(inner, 0, 1, false)
			feed(j, 0, "+I 1 1 a")
			return j
		}, func() *HashJoin { return open(inner, 0, 2, false) }},
		{"deletion not written", func() *HashJoin {
			j := open(inner, 0, 1, false)
			feed(j, 0, "+I 1 1 a")
			if err := j.Snapshot(ctx, 1, st); err != nil {
				t.Fatal(err)
			}
			feed(j, 0, "-D 1 1 a")
			return j
		}, func() *HashJoin { return open(inner, 0, 2, false) }},
		{"pending stream rows", func() *HashJoin {
			j := open(lookup, 0, 1, false)
			feed(j, 0, "+I 1 1 a")
			if err := j.Snapshot(ctx, 1, st); err != nil {
				t.Fatal(err)
			}
			return j
		}, func() *HashJoin { return open(lookup, 0, 2, false) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, j := tc.old(), tc.new()
			before := dumpJoin(t, o)
			ok, err := j.AdoptGroups(ctx, o, o.env.KeyGroups, st)
			if ok || err != nil {
				t.Fatalf("AdoptGroups: %v, %v; want a fallback", ok, err)
			}
			if after := dumpJoin(t, o); after != before {
				t.Fatalf("the old instance changed:\n%s\nwas\n%s", after, before)
			}
			if j.sides[0].store.Live()+j.sides[1].store.Live() != 0 {
				t.Fatal("the new instance took rows")
			}
		})
	}
}
