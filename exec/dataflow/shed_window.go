package dataflow

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// Window shedding (ShedSpec.Window): a job whose result is an aggregation
// over TUMBLE windows drops whole windows at its source instead of rows at
// random, so that every window it emits is exact — computed from every row
// of that window the source read — and the windows it drops are missing
// altogether.
//
// A window's fate must be the same at every source instance (the rows of
// one window may come from every split) and must never change once any of
// its rows was kept or dropped, although the drop fraction changes every
// period. Both hold because the fate of the window starting at w is a pure
// function of w and of the drop fraction in effect for w:
//
//	drop(w) = hash(seed, w) < fraction(w)
//
// where hash is uniform in [0, 1) and fraction(w) is read from a schedule
// the controller extends, never edits: a list of (from, fraction) entries,
// the fraction applying to the window starts from `from` on. The job keeps
// a frontier, the largest window start any source instance has decided a
// row of; the controller adds an entry only from beyond the frontier, so an
// entry never covers a window already decided. A source instance raises the
// frontier to the largest window start of its chunk before it reads the
// schedule, and both the raise and the controller's extension happen under
// one lock: a chunk whose windows are all at or below the frontier reads
// the schedule without it, as no entry added after it read the frontier
// can reach those windows. A new fraction therefore applies from the next
// window no source has reached yet; with windows much shorter than the
// time the source takes to read through them, that is at once.
//
// Dropped windows are counted once per job, by the instance that first
// drops a row of them: a job-wide set of the windows counted. When the
// source's watermark is on the window's time column, the set forgets the
// windows that every source instance's watermark had passed once its last
// chunk was shed (their rows would be late), and the schedule forgets its
// entries that only such windows use. A fraction is recorded in steps of
// fractionStep, and fractions below half a step drop nothing.
//
// The schedule is recorded with the sources' positions in checkpoints, and
// a job resumed from one takes it back (shed_window_state.go); the set of
// windows counted is not: a resumed job counts its own.

// WindowShed makes a shedding job drop whole TUMBLE windows at one source
// stage, the one that reads the window's time column.
type WindowShed struct {
	// SourceNodeID is the source's physical plan node: the source stage
	// whose StageSpec.SourceNodeID it is sheds; other source stages do not.
	SourceNodeID int
	// TimeCol is the ordinal of the window's time column (a TIMESTAMP, ms
	// since the epoch) in that source's chunks.
	TimeCol int
	// Size is the TUMBLE window's size in ms; windows start at the
	// multiples of Size (as exec/window aligns them).
	Size int64
}

// fractionStep is the resolution of the fractions the schedule records:
// the controller's fraction is rounded to it, so that the schedule grows
// only when the fraction really moves, not at every period's noise.
const fractionStep = 0.01

// countedPrune is how many counted windows the job remembers before it
// forgets those the watermarks have passed.
const countedPrune = 1024

// fateSchedule is one immutable version of the drop fractions by window
// start: frac[i] applies to the window starts from from[i] (ascending) up
// to from[i+1]; windows before from[0] drop nothing.
type fateSchedule struct {
	from []int64
	frac []float64
}

// fraction returns the drop fraction in effect for window start w.
func (s *fateSchedule) fraction(w int64) float64 {
	i := sort.Search(len(s.from), func(i int) bool { return s.from[i] > w })
	if i == 0 {
		return 0
	}
	return s.frac[i-1]
}

// windowFates decides the fate of every window of a job that sheds whole
// windows, for all its source instances.
type windowFates struct {
	spec WindowShed
	seed uint64

	mu       sync.Mutex
	frontier atomic.Int64 // the largest window start decided; math.MinInt64: none
	sched    atomic.Pointer[fateSchedule]
	seq      uint64             // how many times sched changed (under mu)
	restored bool               // the checkpoint's schedule was taken back (shed_window_state.go)
	counted  map[int64]struct{} // the dropped windows counted (under mu)
	// wms are the source instances' shedders, whose watermarks say which
	// windows can get no more rows, once all nwms have registered; none
	// when the watermark is not on the window's time column.
	wms  []*windowShedder
	nwms int
}

func newWindowFates(spec WindowShed, seed uint64) *windowFates {
	f := &windowFates{spec: spec, seed: seed, counted: map[int64]struct{}{}}
	f.frontier.Store(math.MinInt64)
	f.sched.Store(&fateSchedule{})
	return f
}

// publish makes fraction p apply from the first window start beyond the
// frontier on.
func (f *windowFates) publish(p float64) {
	p = min(max(math.Round(p/fractionStep)*fractionStep, 0), 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	old := f.sched.Load()
	n := len(old.from)
	if n > 0 && old.frac[n-1] == p || n == 0 && p == 0 {
		return
	}
	from := f.frontier.Load()
	if from != math.MinInt64 {
		from++
	}
	// Entries from before the windows any row can still reach are
	// forgotten, but for the one in effect there.
	keep := 0
	if low, ok := f.lowWindow(); ok {
		keep = max(sort.Search(n, func(i int) bool { return old.from[i] > low })-1, 0)
	}
	next := &fateSchedule{from: make([]int64, 0, n-keep+1), frac: make([]float64, 0, n-keep+1)}
	next.from, next.frac = append(next.from, old.from[keep:]...), append(next.frac, old.frac[keep:]...)
	if m := len(next.from); m > 0 && next.from[m-1] == from {
		// The frontier did not move since the last entry: no window was
		// decided under it, so it is replaced.
		next.from, next.frac = next.from[:m-1], next.frac[:m-1]
	}
	next.from, next.frac = append(next.from, from), append(next.frac, p)
	f.sched.Store(next)
	f.seq++
}

// lowWindow returns the lowest window start a row may still reach, when
// the watermarks say: every window ending at or before the lowest source
// instance's watermark would only get late rows. Called under mu.
func (f *windowFates) lowWindow() (int64, bool) {
	if len(f.wms) == 0 || len(f.wms) < f.nwms {
		return 0, false
	}
	low := int64(math.MaxInt64)
	for _, s := range f.wms {
		wm := s.safe.Load()
		if wm == 0 {
			return 0, false // an instance has none yet
		}
		low = min(low, wm)
	}
	return floorDiv(low, f.spec.Size) * f.spec.Size, true
}

// decided reads the schedule for windows up to last: it raises the
// frontier to last first when last is beyond it.
func (f *windowFates) decided(last int64) *fateSchedule {
	if last > f.frontier.Load() {
		f.mu.Lock()
		if last > f.frontier.Load() {
			f.frontier.Store(last)
		}
		f.mu.Unlock()
	}
	return f.sched.Load()
}

// count records that window w was dropped, and reports whether it was the
// first to.
func (f *windowFates) count(w int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.counted[w]; ok {
		return false
	}
	f.counted[w] = struct{}{}
	if len(f.counted) >= countedPrune {
		if low, ok := f.lowWindow(); ok {
			for k := range f.counted {
				if k < low {
					delete(f.counted, k)
				}
			}
		}
	}
	return true
}

// drops reports whether the window starting at w is dropped under sched.
func (f *windowFates) drops(sched *fateSchedule, w int64) bool {
	p := sched.fraction(w)
	return p > 0 && windowHash(f.seed, w) < p
}

// windowHash maps (seed, w) to a uniform number in [0, 1) (splitmix64's
// finalizer): the same at every source instance, and independent from one
// window to the next.
func windowHash(seed uint64, w int64) float64 {
	x := seed ^ uint64(w)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// floorDiv returns ⌊a/b⌋ for b > 0 (as exec/window aligns windows).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// windowShedder drops the rows of the dropped windows at one source
// instance.
type windowShedder struct {
	fates *windowFates
	sel   []int32
	// lastCounted is the window this instance last counted or found
	// counted, so that the job-wide set is asked once per window.
	lastCounted int64
	hasCounted  bool
	// safe is the instance's watermark once the chunks it was given are
	// decided (0: none yet), when it is on the window's time column: the
	// rows still to come are not behind it. (The watermark generator
	// moves the watermark past a chunk before its rows are shed, so the
	// watermark itself is not safe to forget windows by.)
	safe        atomic.Int64
	watermarked bool
}

// shedder returns the window shedder of an instance of the source stage
// spec, or nil when the stage is not the one that sheds.
func (f *windowFates) shedder(spec StageSpec) *windowShedder {
	if spec.SourceNodeID != f.spec.SourceNodeID {
		return nil
	}
	s := &windowShedder{fates: f}
	if w := spec.Watermark; w != nil && w.TimeCol == f.spec.TimeCol {
		s.watermarked = true
		f.mu.Lock()
		f.wms, f.nwms = append(f.wms, s), spec.Parallelism
		f.mu.Unlock()
	}
	return s
}

// apply returns the rows of c whose windows are kept (and those with no
// event time, which belong to no window), counting the others in m's
// ShedRows and each dropped window once per job in m's ShedWindows: c
// itself when all are kept, else a new chunk (c is not released).
func (s *windowShedder) apply(c exec.Chunk, m *exec.OperatorMetrics, alloc memory.Allocator) (exec.Chunk, error) {
	if s.watermarked {
		defer s.safe.Store(m.Watermark.Load())
	}
	n := c.NumRows()
	if n == 0 {
		return c, nil
	}
	f := s.fates
	times, ok := c.Batch.Column(f.spec.TimeCol).(*array.Timestamp)
	if !ok {
		return c, fmt.Errorf("dataflow: window shedding: column %d is %s, not a TIMESTAMP", f.spec.TimeCol, c.Batch.Column(f.spec.TimeCol).DataType())
	}
	vals := times.TimestampValues()
	nulls := times.NullN() > 0
	size := f.spec.Size
	last := int64(math.MinInt64)
	for i, v := range vals {
		if !nulls || times.IsValid(i) {
			last = max(last, floorDiv(int64(v), size)*size)
		}
	}
	if last == math.MinInt64 {
		return c, nil // no event times
	}
	sched := f.decided(last)
	if len(sched.from) == 0 {
		return c, nil
	}
	s.sel = s.sel[:0]
	cur, drop := int64(math.MinInt64), false
	for i, v := range vals {
		if nulls && times.IsNull(i) {
			s.sel = append(s.sel, int32(i))
			continue
		}
		w := floorDiv(int64(v), size) * size
		if w != cur || i == 0 {
			cur, drop = w, f.drops(sched, w)
			if drop && (!s.hasCounted || w != s.lastCounted) {
				if f.count(w) {
					m.ShedWindows.Add(1)
				}
				s.lastCounted, s.hasCounted = w, true
			}
		}
		if !drop {
			s.sel = append(s.sel, int32(i))
		}
	}
	if len(s.sel) == n {
		return c, nil
	}
	m.ShedRows.Add(int64(n - len(s.sel)))
	return exec.TakeRows(alloc, c, s.sel)
}
