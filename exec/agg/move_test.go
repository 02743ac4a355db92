package agg

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

// TestHashAggAdoptGroupsEqualsRestore runs every checkpoint case through
// two fleets of instances that change parallelism 1 → 2 → 3 → 1 → 4 → 2
// at checkpoints: one moves by AdoptGroups (a new instance takes over the
// old instance whose key groups overlap its own most and reads only the
// groups it gains), the other by a full Restore of each new instance's
// key groups. After every move each instance of the first must hold
// exactly the state of its twin of the second (every group's entry, its
// close time, the watermark and what the next snapshot will write), must
// have read only the groups it gained, and both fleets must emit the same
// rows at every step and write the same checkpoint entries.
func TestHashAggAdoptGroupsEqualsRestore(t *testing.T) {
	for _, tc := range checkpointCases {
		if tc.keys == nil {
			continue // a global aggregate runs as one instance
		}
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.keys, tc.calls...)
			cfg.AppendOnly, cfg.Close, cfg.PartKeys = tc.appendOnly, tc.close, tc.part
			for seed := range uint64(4) {
				checkMoves(t, cfg, tc.input, checkpointSteps(tc, rand.New(rand.NewPCG(seed, 12))), []int{1, 2, 3, 1, 4, 2})
			}
		})
	}
}

// fleet is the instances of an aggregate at one parallelism, and the
// checkpoint they write.
type fleet struct {
	ops   []*HashAgg
	state *exectest.State
}

// checkMoves runs steps through the two fleets, moving them through the
// parallelisms ps at evenly spaced steps.
func checkMoves(t *testing.T, cfg HashConfig, input string, steps []exectest.Step, ps []int) {
	t.Helper()
	ctx := context.Background()
	alloc := exectest.Alloc(t)
	moved, restored := &fleet{state: exectest.NewState()}, &fleet{state: exectest.NewState()}
	defer func() {
		for _, f := range []*fleet{moved, restored} {
			for _, op := range f.ops {
				if op != nil {
					op.Close()
				}
			}
		}
	}()
	open := func(i, p int) *HashAgg {
		h := NewHashAgg(cfg)
		if err := h.Open(ctx, exectest.InstanceEnv(alloc, i, p, nil)); err != nil {
			t.Fatal(err)
		}
		return h
	}
	outM := exectest.NewCollector(t, exectest.CollectorOptions{KeyCols: len(cfg.GroupKeys)})
	outR := exectest.NewCollector(t, exectest.CollectorOptions{KeyCols: len(cfg.GroupKeys)})
	per := len(steps) / len(ps)
	for phase, p := range ps {
		if phase == 0 {
			moved.ops, restored.ops = []*HashAgg{open(0, p)}, []*HashAgg{open(0, p)}
		} else {
			// Both fleets checkpoint, with the same entries.
			for _, f := range []*fleet{moved, restored} {
				f.state.Reset()
				for _, op := range f.ops {
					if err := op.Snapshot(ctx, uint64(phase), f.state); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !maps.EqualFunc(moved.state.Entries, restored.state.Entries, func(a, b map[string][]byte) bool {
				return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
			}) {
				t.Fatalf("phase %d: the fleets' checkpoints differ", phase)
			}
			from := len(moved.ops)
			match := matchByOverlap(from, p)
			var ops, fresh []*HashAgg
			for i := range p {
				h, r := open(i, p), open(i, p)
				if err := r.Restore(ctx, restored.state, r.env.KeyGroups); err != nil {
					t.Fatal(err)
				}
				fresh = append(fresh, r)
				read := &groupsRead{StateReader: moved.state}
				var held exec.KeyGroupRange
				if o := match[i]; o >= 0 {
					held = exec.KeyGroupsOf(o, from)
					ok, err := h.AdoptGroups(ctx, moved.ops[o], held, read)
					if err != nil || !ok {
						t.Fatalf("phase %d: instance %d adopting %d: %v, %v", phase, i, o, ok, err)
					}
					moved.ops[o].Close()
					moved.ops[o] = nil
				} else if err := h.Restore(ctx, read, h.env.KeyGroups); err != nil {
					t.Fatal(err)
				}
				if want := h.env.KeyGroups.Minus(held); !slices.Equal(read.ranges, want) {
					t.Fatalf("phase %d: instance %d (held %v) read %v, want %v", phase, i, held, read.ranges, want)
				}
				if g, w := dumpAgg(t, h), dumpAgg(t, r); g != w {
					t.Fatalf("phase %d (%d → %d): instance %d holds\n%s\nafter a full restore\n%s", phase, from, p, i, g, w)
				}
				ops = append(ops, h)
			}
			for _, op := range moved.ops {
				if op != nil {
					op.Close()
				}
			}
			for _, op := range restored.ops {
				op.Close()
			}
			moved.ops, restored.ops = ops, fresh
		}
		end := (phase + 1) * per
		if phase == len(ps)-1 {
			end = len(steps)
		}
		for k := phase * per; k < end; k++ {
			runStep(t, moved.ops, cfg, input, steps[k], outM)
			runStep(t, restored.ops, cfg, input, steps[k], outR)
			if g, w := sortedLines(outM.Take()), sortedLines(outR.Take()); g != w {
				t.Fatalf("step %d at parallelism %d: moved instances emitted\n%s\nrestored ones\n%s", k, p, g, w)
			}
		}
	}
}

// runStep feeds step to the instances ops: a chunk's rows to the instance
// the hash exchange routes them to, a control message to all.
func runStep(t *testing.T, ops []*HashAgg, cfg HashConfig, input string, st exectest.Step, out exec.Emitter) {
	t.Helper()
	ctx := context.Background()
	for i, op := range ops {
		var err error
		if st.Ctl != nil {
			err = op.OnControl(ctx, *st.Ctl, out)
		} else if text, ok := exectest.Routed(t, partitionedBy(cfg), st.In, i, len(ops)); ok {
			ch := exectest.Chunk(t, op.env.Alloc, text)
			err = op.Process(ctx, 0, ch, out)
			ch.Batch.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func sortedLines(text string) string {
	lines := strings.Split(text, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
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

// groupsRead records the ranges of key groups scanned.
type groupsRead struct {
	exec.StateReader
	ranges []exec.KeyGroupRange
}

func (r *groupsRead) Scan(ctx context.Context, groups exec.KeyGroupRange, fn func(group int, key, value []byte) error) error {
	r.ranges = append(r.ranges, groups)
	return r.StateReader.Scan(ctx, groups, fn)
}

// dumpAgg renders the state of h: every live group's key group, entry key
// and value and its close time, then the watermark and the delta (what
// the next snapshot writes). It fails t if a group lies outside the key
// groups the instance owns.
func dumpAgg(t *testing.T, h *HashAgg) string {
	t.Helper()
	var keys []byte
	var ends []int
	var slots []int32
	for s := range int32(h.arena.Len()) {
		if h.live(s) {
			keys = h.keys.appendEntryKey(keys, s)
			ends = append(ends, len(keys))
			slots = append(slots, s)
		}
	}
	if err := h.keyGroups(keys, 0, ends); err != nil {
		t.Fatal(err)
	}
	var lines []string
	start := 0
	for i, s := range slots {
		g := h.delta.groups[i]
		if !h.env.KeyGroups.Contains(g) {
			t.Errorf("a group of key group %d in an instance owning %v", g, h.env.KeyGroups)
		}
		val, err := h.appendGroup(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		closeAt := ""
		if h.close != nil {
			closeAt = fmt.Sprint(" closes ", h.close.slotAt[s])
		}
		lines = append(lines, fmt.Sprintf("%d %q %x%s", g, keys[start:ends[i]], val, closeAt))
		start = ends[i]
	}
	slices.Sort(lines)
	d := &h.delta
	if h.close != nil {
		lines = append(lines, fmt.Sprintf("watermark %d", h.close.wm))
	}
	dirty := 0
	for _, s := range d.slots {
		if d.bits[s>>6]&(1<<(s&63)) != 0 {
			dirty++
		}
	}
	lines = append(lines, fmt.Sprintf("saved watermark %d, written %v, %d dirty, %d deletions", d.savedWM, d.written, dirty, len(d.delEnds)))
	return strings.Join(lines, "\n")
}
