package dataflow

import (
	"context"
	"encoding/binary"
	"maps"
	"sync"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// movingCounter is a passCounter that adopts key groups
// (exec.GroupMover): it takes over an old instance's counts of the keys
// whose group it owns and restores the groups it gains.
type movingCounter struct {
	passCounter
	adopted bool // AdoptGroups took an old instance over
}

func (m *movingCounter) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	o, ok := old.(*movingCounter)
	if !ok || len(o.dirty) > 0 {
		return false, nil
	}
	for key, n := range o.counts {
		g, err := m.group(key)
		if err != nil {
			return true, err
		}
		if m.env.KeyGroups.Contains(g) {
			m.counts[key] = n
		}
	}
	o.counts = nil
	m.adopted = true
	for _, gained := range m.env.KeyGroups.Minus(held) {
		if err := r.Scan(ctx, gained, func(_ int, key, value []byte) error {
			m.counts[int64(binary.BigEndian.Uint64(key))] = int64(binary.BigEndian.Uint64(value))
			return nil
		}); err != nil {
			return true, err
		}
	}
	return true, nil
}

// TestStopAndHandOverRescales is TestStopAtCheckpointRescales with an
// operator that adopts key groups, moved 1 → 2 → 4 → 3 → 1 by
// StopAndHandOver: every row is counted exactly once, each new instance
// matched with an old one takes it over, and the restores read only the
// key groups that changed instance (RestoreMoves: Read equals Moved).
func TestStopAndHandOverRescales(t *testing.T) {
	ctx, store := checkpointed(t)
	input := rescaleInput(60)
	var mu sync.Mutex
	var prev GraphSpec
	var handoff *Handoff
	seen := 0
	for round, p := range []int{1, 2, 4, 3, 1} {
		rec := &recorder{}
		k := 10 * (round + 1)
		src := exectest.NewSource(t, exectest.Alloc(t), input[:k]...)
		var counters []*movingCounter
		count := OpSpec{Name: "count", StateKey: "count", New: func(int) (exec.Operator, error) {
			mu.Lock()
			defer mu.Unlock()
			c := &movingCounter{}
			counters = append(counters, c)
			return c, nil
		}}
		sink := only("sink", statelessRecorder{rec})
		var g GraphSpec
		if p == 1 {
			s := sourceStage(src, count, sink)
			s.SourceKey = "source"
			g = GraphSpec{Stages: []StageSpec{s}}
		} else {
			s := sourceStage(src)
			s.SourceKey = "source"
			g = GraphSpec{Stages: []StageSpec{s, stage(0, DistHash, p, count), stage(1, DistSingle, 1, sink)}}
		}
		held := handoff.Len()
		job, err := StartJob(ctx, g, JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: round > 0, Handoff: handoff})
		if err != nil {
			t.Fatal(err)
		}
		if round > 0 {
			if err := job.WaitOpened(ctx); err != nil {
				t.Fatal(err)
			}
			adopted, matched := 0, 0
			for _, c := range counters {
				if c.adopted {
					adopted++
				}
			}
			was := 1
			if len(prev.Stages) > 1 {
				was = prev.Stages[1].Parallelism
			}
			for _, o := range exec.MatchInstances(was, p) {
				if o >= 0 {
					matched++
				}
			}
			if held != was || adopted != matched {
				t.Errorf("round %d (%d → %d): %d instances handed over, %d adopted; want %d and %d", round, was, p, held, adopted, was, matched)
			}
			if m := job.RestoreMoves(prev); m.Read <= 0 || m.Read != m.Moved {
				t.Errorf("round %d (%d → %d): read %d bytes, %d of them in groups that changed instance", round, was, p, m.Read, m.Moved)
			}
		}
		flushed(t, ctx, job, 1)
		if round < 4 {
			src.Add(input[k : k+10]...)
		}
		var epoch uint64
		epoch, handoff, err = job.StopAndHandOver(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if handoff.Epoch() != epoch {
			t.Fatalf("the handoff holds epoch %d, the stop took %d", handoff.Epoch(), epoch)
		}
		n := int64(0)
		for _, c := range committedIn(t, store, "count") {
			n += c
		}
		seen += len(rec.sorted())
		if int64(seen) != n {
			t.Fatalf("round %d (parallelism %d): the sinks saw %d rows, the checkpoint counts %d", round, p, seen, n)
		}
		prev = g
	}
	handoff.Close()
	if got, want := committedIn(t, store, "count"), countsOf(input[:50]); !maps.Equal(got, want) {
		t.Fatalf("after the rescales the counts are %v, want %v", got, want)
	}
}

// TestMatchInstances: the matching keeps in place as many key groups as
// the best one-to-one pairing of old and new instances, found by trying
// them all, and pairs each old instance at most once.
func TestMatchInstances(t *testing.T) {
	kept := func(from, to int, match []int) int {
		n := 0
		for i, o := range match {
			if o >= 0 {
				n += exec.KeyGroupsOf(i, to).Overlap(exec.KeyGroupsOf(o, from))
			}
		}
		return n
	}
	var best func(from, to, i int, used []bool) int
	best = func(from, to, i int, used []bool) int {
		if i == to {
			return 0
		}
		b := best(from, to, i+1, used)
		for o := range from {
			if !used[o] {
				used[o] = true
				b = max(b, exec.KeyGroupsOf(i, to).Overlap(exec.KeyGroupsOf(o, from))+best(from, to, i+1, used))
				used[o] = false
			}
		}
		return b
	}
	for from := 1; from <= 6; from++ {
		for to := 1; to <= 6; to++ {
			match := exec.MatchInstances(from, to)
			used := map[int]bool{}
			for _, o := range match {
				if o >= 0 && used[o] {
					t.Fatalf("%d → %d: %v pairs old instance %d twice", from, to, match, o)
				}
				used[o] = true
			}
			if got, want := kept(from, to, match), best(from, to, 0, make([]bool, from)); got != want {
				t.Errorf("%d → %d: %v keeps %d groups, the best pairing %d", from, to, match, got, want)
			}
		}
	}
}
