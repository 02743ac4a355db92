package dataflow

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// tsSchema is the schema of the window shedding tests' batches: a
// TIMESTAMP(3) t.
var tsSchema = arrow.NewSchema([]arrow.Field{{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Millisecond}}}, nil)

// tsChunk returns a chunk of the event times ts (ms).
func tsChunk(alloc memory.Allocator, ts []int64) exec.Chunk {
	b := array.NewTimestampBuilder(alloc, &arrow.TimestampType{Unit: arrow.Millisecond})
	defer b.Release()
	for _, t := range ts {
		b.Append(arrow.Timestamp(t))
	}
	col := b.NewArray()
	defer col.Release()
	return exec.Chunk{Batch: array.NewRecordBatch(tsSchema, []arrow.Array{col}, int64(len(ts)))}
}

// shedTimes runs ts through s and returns the times kept.
func shedTimes(t *testing.T, s *windowShedder, m *exec.OperatorMetrics, alloc memory.Allocator, ts []int64) []int64 {
	t.Helper()
	c := tsChunk(alloc, ts)
	defer c.Batch.Release()
	kept, err := s.apply(c, m, alloc)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Batch != c.Batch {
		defer kept.Batch.Release()
	}
	var out []int64
	for _, v := range kept.Batch.Column(0).(*array.Timestamp).TimestampValues() {
		out = append(out, int64(v))
	}
	return out
}

// TestWindowFatesConsistent runs the rows of 2000 windows of 10 ms, in
// shuffled chunks, through four source instances sharing one job's fates
// while another goroutine changes the drop fraction all the time: every
// window is kept whole or dropped whole across the instances, and the
// dropped rows and windows are counted once each.
func TestWindowFatesConsistent(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer alloc.AssertSize(t, 0)
	const size, windows, perWindow, instances = 10, 2000, 6, 4
	f := newWindowFates(WindowShed{TimeCol: 0, Size: size}, 42)
	// Each instance reads its split's rows mostly in order: chunks of a
	// few windows, a window's rows spread over the instances.
	var rows [instances][]int64
	for w := int64(0); w < windows; w++ {
		for k := int64(0); k < perWindow; k++ {
			i := rand.IntN(instances)
			rows[i] = append(rows[i], w*size+k)
		}
	}
	f.publish(0.3)
	stop := make(chan struct{})
	var ctl sync.WaitGroup
	ctl.Go(func() {
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			f.publish([]float64{0.3, 0.7, 0, 0.5}[k%4])
		}
	})
	kept := make([]map[int64]int, instances)
	metrics := make([]*exec.OperatorMetrics, instances)
	var wg sync.WaitGroup
	for i := range instances {
		metrics[i] = &exec.OperatorMetrics{}
		kept[i] = map[int64]int{}
		s := f.shedder(StageSpec{Parallelism: instances})
		wg.Go(func() {
			for r := rows[i]; len(r) > 0; {
				n := min(len(r), 1+rand.IntN(20))
				for _, v := range shedTimes(t, s, metrics[i], alloc, r[:n]) {
					kept[i][floorDiv(v, size)]++
				}
				r = r[n:]
			}
		})
	}
	wg.Wait()
	close(stop)
	ctl.Wait()
	var shedRows, shedWindows int64
	for i := range instances {
		shedRows += metrics[i].ShedRows.Load()
		shedWindows += metrics[i].ShedWindows.Load()
	}
	var keptRows, keptWindows int64
	for w := int64(0); w < windows; w++ {
		n := 0
		for i := range instances {
			n += kept[i][w]
		}
		switch n {
		case 0:
		case perWindow:
			keptWindows++
		default:
			t.Fatalf("window %d: %d of its %d rows kept", w, n, perWindow)
		}
		keptRows += int64(n)
	}
	if shedRows != windows*perWindow-keptRows || shedWindows != windows-keptWindows {
		t.Errorf("counted %d rows and %d windows shed, want %d and %d", shedRows, shedWindows, windows*perWindow-keptRows, windows-keptWindows)
	}
	if shedWindows == 0 {
		t.Error("no window dropped")
	}
}

// TestWindowFatesShare decides 20000 windows at each of a few fractions:
// the share dropped is the fraction.
func TestWindowFatesShare(t *testing.T) {
	const size, windows = 1000, 20000
	for _, p := range []float64{0.1, 0.5, 0.9} {
		f := newWindowFates(WindowShed{TimeCol: 0, Size: size}, 11)
		f.publish(p)
		sched := f.decided(windows * size)
		dropped := 0
		for w := int64(0); w < windows; w++ {
			if f.drops(sched, w*size) {
				dropped++
			}
		}
		if share := float64(dropped) / windows; share < p-0.02 || share > p+0.02 {
			t.Errorf("fraction %v: dropped %.3f of the windows", p, share)
		}
	}
}

// TestWindowFateFixed decides windows under one fraction, then changes
// it: rows that come later for the windows already decided (out of order,
// or from another instance) meet the same fate, and the new fraction
// applies from the next window on.
func TestWindowFateFixed(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer alloc.AssertSize(t, 0)
	const size = 100
	f := newWindowFates(WindowShed{TimeCol: 0, Size: size}, 7)
	a, b := &exec.OperatorMetrics{}, &exec.OperatorMetrics{}
	sa, sb := f.shedder(StageSpec{}), f.shedder(StageSpec{})
	var first []int64
	for w := int64(0); w < 200; w++ {
		first = append(first, w*size+1)
	}
	shedTimes(t, sa, a, alloc, first) // the fraction is 0: all kept, frontier at window 199
	if a.ShedRows.Load() != 0 {
		t.Fatalf("shed %d rows before any fraction was set", a.ShedRows.Load())
	}
	f.publish(0.9)
	again := shedTimes(t, sb, b, alloc, first)
	if len(again) != len(first) || b.ShedRows.Load() != 0 {
		t.Fatalf("windows decided under fraction 0 dropped %d rows after it became 0.9", len(first)-len(again))
	}
	var next []int64
	for w := int64(200); w < 400; w++ {
		next = append(next, w*size+2)
	}
	keptB := shedTimes(t, sb, b, alloc, next)
	if d := len(next) - len(keptB); d < 150 {
		t.Fatalf("dropped %d of 200 windows after the fraction became 0.9", d)
	}
	f.publish(0)
	keptA := shedTimes(t, sa, a, alloc, next)
	if !equalInts(keptA, keptB) {
		t.Fatalf("the windows kept changed when the fraction moved to 0: %v, then %v", keptB, keptA)
	}
	if got, want := a.ShedWindows.Load()+b.ShedWindows.Load(), int64(len(next)-len(keptB)); got != want {
		t.Errorf("counted %d windows dropped, want %d", got, want)
	}
}

// TestWindowFatesForget checks that a job whose watermark is on the
// window's time column forgets the schedule's entries and the counted
// windows every instance's watermark has passed, and keeps deciding the
// windows after it alike.
func TestWindowFatesForget(t *testing.T) {
	const size = 10
	f := newWindowFates(WindowShed{TimeCol: 0, Size: size}, 3)
	spec := StageSpec{Parallelism: 2, Watermark: &WatermarkSpec{TimeCol: 0}}
	s0, s1 := f.shedder(spec), f.shedder(spec)
	for k := range int64(100) {
		f.decided(k * size)
		f.publish(0.25 + float64(k%2)*0.5)
	}
	if n := len(f.sched.Load().from); n != 100 {
		t.Fatalf("the schedule has %d entries, want 100", n)
	}
	before := f.sched.Load()
	s0.safe.Store(505)
	f.decided(100 * size)
	f.publish(0.9) // an instance without a watermark: nothing forgotten
	if n := len(f.sched.Load().from); n != 101 {
		t.Fatalf("the schedule has %d entries with one instance's watermark unknown, want 101", n)
	}
	s1.safe.Store(700)
	f.decided(101 * size)
	f.publish(0.1)
	after := f.sched.Load()
	if after.from[0] > 500 || len(after.from) != 53 {
		t.Fatalf("after the watermark 505 the schedule starts at %d with %d entries, want windows from 500 on", after.from[0], len(after.from))
	}
	for w := int64(500); w < 1000; w += size {
		if before.fraction(w) != after.fraction(w) {
			t.Fatalf("window %d: fraction %v, then %v", w, before.fraction(w), after.fraction(w))
		}
	}
	for w := range int64(countedPrune) {
		f.count(w * size)
	}
	if len(f.counted) >= countedPrune {
		t.Errorf("%d counted windows kept after the watermark passed most of them", len(f.counted))
	}
}

// TestWindowFatesForgetSafely: the watermark generator moves an
// instance's watermark past the chunk it is about to shed, so the windows
// forgotten must be those behind the watermark it had once its last chunk
// was shed — else a row of the chunk in a window decided before would
// find the window's entry forgotten and meet another fate.
func TestWindowFatesForgetSafely(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer alloc.AssertSize(t, 0)
	const size = 1000
	seed := uint64(1)
	for windowHash(seed, 0) >= 0.9 { // a seed that drops window 0 at 0.9
		seed++
	}
	f := newWindowFates(WindowShed{TimeCol: 0, Size: size}, seed)
	m := &exec.OperatorMetrics{}
	s := f.shedder(StageSpec{Parallelism: 1, Watermark: &WatermarkSpec{TimeCol: 0}})
	f.publish(0.9)
	m.Watermark.Store(9) // the watermark generator, on the first chunk
	if kept := shedTimes(t, s, m, alloc, []int64{0, 9}); len(kept) != 0 {
		t.Fatalf("window 0 kept at fraction 0.9: %v", kept)
	}
	f.publish(0)
	m.Watermark.Store(5005) // on the second chunk, before it is shed
	f.publish(0.5)          // the controller, meanwhile
	if kept := shedTimes(t, s, m, alloc, []int64{5, 5005}); len(kept) != 0 && kept[0] == 5 {
		t.Fatalf("window 0, dropped before, kept a row of the chunk that moved the watermark past it: %v", kept)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
