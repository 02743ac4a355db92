package dataflow

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestSourceAlignmentGroup follows the lowest watermark of a group through
// its members' updates: members count once they have a watermark and
// while they have data to read; a member more than the drift ahead of the
// lowest must wait, and a rise of the lowest wakes it; a lowest that stays
// put for alignStall releases everyone.
func TestSourceAlignmentGroup(t *testing.T) {
	now := time.Unix(0, 0)
	a := newSourceAlignment(time.Second)
	a.now = func() time.Time { return now }
	fast, slow, idle := a.join(), a.join(), a.join()

	if _, _, wait := a.ahead(noWatermark, false); wait {
		t.Fatal("a source without a watermark must not wait")
	}
	a.update(fast, 10_000, true)
	if _, _, wait := a.ahead(10_000, false); !wait {
		t.Fatal("members without a watermark yet, but the fast source need not wait for them")
	}
	a.update(slow, 2_000, true)
	a.update(idle, noWatermark, false) // caught up before its first row
	if a.low != 2_000 {
		t.Fatalf("low %d, want 2000", a.low)
	}
	if _, _, wait := a.ahead(3_000, false); wait {
		t.Fatal("a source within the drift must not wait")
	}
	rose, until, wait := a.ahead(10_000, false)
	if !wait || !until.Equal(now.Add(alignStall)) {
		t.Fatalf("a source 8 s ahead: wait %v until %v", wait, until)
	}
	a.update(slow, 5_000, true)
	select {
	case <-rose:
	default:
		t.Fatal("the lowest rose but the wait was not woken")
	}
	if a.low != 5_000 {
		t.Fatalf("low %d, want 5000", a.low)
	}
	// Within the drift, a source reads on; one held already waits until
	// it is within half of it.
	if _, _, wait := a.ahead(5_800, false); wait {
		t.Fatal("a source 0.8 s ahead, within the drift, must wait")
	}
	if _, _, wait := a.ahead(5_800, true); !wait {
		t.Fatal("a held source 0.8 s ahead, past half the drift, need not wait")
	}
	if _, _, wait := a.ahead(5_400, true); wait {
		t.Fatal("a held source within half the drift must wait")
	}
	// The slow source catches up: it holds no one back.
	a.update(slow, 5_000, false)
	if a.low != 10_000 {
		t.Fatalf("low %d once the slow source caught up, want the fast one's 10000", a.low)
	}
	// It reads again, behind: it counts again.
	a.update(slow, 6_000, true)
	if _, _, wait := a.ahead(10_000, false); !wait {
		t.Fatal("the slow source reads again but does not hold the fast one back")
	}
	// Its watermark stays put past alignStall: the others read on.
	now = now.Add(alignStall)
	if _, _, wait := a.ahead(10_000, false); wait {
		t.Fatal("the lowest watermark stalled, yet a source must wait")
	}
	a.update(slow, 7_000, true) // it rises: waits begin again
	if _, _, wait := a.ahead(10_000, false); !wait {
		t.Fatal("the lowest rose again, but the fast source need not wait")
	}
	a.update(slow, 0, false)
	a.update(fast, 0, false)
	if _, _, wait := a.ahead(99_000, false); a.any || wait {
		t.Fatal("no member counts, yet a source must wait")
	}
}

// timedSource emits chunks of one TIMESTAMP column: chunk i holds the
// event times i*step .. i*step+step-1 ms (rows of them), sleeping pause
// before each, then ends. It records the highest event time it has
// emitted in emitted, and calls onNext, if set, before each chunk with
// the event time it is about to reach.
type timedSource struct {
	sourceBase
	chunks, rows int
	step         int64
	pause        time.Duration
	constant     bool         // every row at event time 0
	emitted      atomic.Int64 // the highest event time emitted
	done         atomic.Int64 // the chunks emitted
	onNext       func(upto int64)
	next         int
}

func (s *timedSource) Next(ctx context.Context) (exec.Chunk, error) {
	if s.next == s.chunks {
		return exec.Chunk{}, io.EOF
	}
	if s.pause > 0 {
		time.Sleep(s.pause)
	}
	i := int64(s.next)
	s.next++
	upto := i*s.step + s.step - 1
	if s.constant {
		upto = 0
	}
	if s.onNext != nil {
		s.onNext(upto)
	}
	rows := make([][]types.Datum, s.rows)
	for r := range rows {
		v := i*s.step + int64(r)*s.step/int64(s.rows)
		if s.constant {
			v = 0
		}
		rows[r] = []types.Datum{types.IntDatum(v)}
	}
	rows[len(rows)-1][0] = types.IntDatum(upto)
	s.emitted.Store(upto)
	s.done.Add(1)
	return exec.Chunk{Batch: types.BuildRecord(s.alloc, []string{"ts"}, []types.T{types.TimestampT(3)}, rows)}, nil
}

// rowCounter counts the rows of each input.
type rowCounter struct {
	nopOp
	rows [2]atomic.Int64
}

func (c *rowCounter) Process(_ context.Context, in int, ch exec.Chunk, _ exec.Emitter) error {
	c.rows[in].Add(int64(ch.NumRows()))
	return nil
}

// twoSources is a job reading a and b, each in a stage of its own with
// event time, into one sink stage counting the rows of each.
func twoSources(a, b exec.Source, sink *rowCounter) GraphSpec {
	wm := &WatermarkSpec{TimeCol: 0}
	return GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return a, nil }, Watermark: wm},
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return b, nil }, Watermark: wm},
		{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistSingle}, {From: 1, Dist: DistSingle, Input: 1}},
			Ops: []OpSpec{only("count", sink)}},
	}}
}

// TestAlignedSourcesStayWithinTheDrift runs a source that reads 100
// seconds of event time at once beside one that takes 2 ms a second: with
// alignment, the fast one never reads a chunk more than the drift (and a
// chunk) ahead of what the slow one has emitted; without, it runs ahead.
func TestAlignedSourcesStayWithinTheDrift(t *testing.T) {
	const step, drift = 1000, 2 * time.Second
	for _, aligned := range []bool{true, false} {
		alloc := exectest.Alloc(t)
		slow := &timedSource{chunks: 100, rows: 10, step: step, pause: 2 * time.Millisecond}
		fast := &timedSource{chunks: 100, rows: 10, step: step}
		var mu sync.Mutex
		var lead int64 // the most the fast source read past what the slow one had emitted
		fast.onNext = func(upto int64) {
			mu.Lock()
			lead = max(lead, upto-slow.emitted.Load())
			mu.Unlock()
		}
		sink := &rowCounter{}
		opts := JobOptions{Alloc: alloc}
		if aligned {
			opts.WatermarkAlignment = drift
		}
		job := runJob(t, twoSources(fast, slow, sink), opts)
		if got := sink.rows[0].Load() + sink.rows[1].Load(); got != 2000 {
			t.Fatalf("aligned %v: the sink counted %d rows, want 2000", aligned, got)
		}
		// Before its chunk, the fast source's watermark (the end of its
		// last chunk) was within the drift of the slow one's, which is at
		// most what the slow one emitted.
		bound := drift.Milliseconds() + 2*step
		switch {
		case aligned && lead > bound:
			t.Errorf("aligned: the fast source read %d ms past the slow one, more than %d", lead, bound)
		case !aligned && lead <= bound:
			t.Errorf("not aligned: the fast source stayed within %d ms of the slow one (%d): the test shows nothing", bound, lead)
		}
		if aligned && job.wmAlign.held.Load() == 0 {
			t.Error("aligned: the fast source was never held back")
		}
		if !aligned && job.wmAlign != nil {
			t.Error("not aligned, yet the job has an alignment group")
		}
	}
}

// TestAlignmentStallsOnAWatermarkThatStaysPut reads a source whose event
// time never advances beside one that reads 100 seconds of it: aligned,
// the second waits for the first no longer than alignStall at a time and
// ends long before it.
func TestAlignmentStallsOnAWatermarkThatStaysPut(t *testing.T) {
	alloc := exectest.Alloc(t)
	stuck := &timedSource{chunks: 300, rows: 4, step: 1000, pause: 5 * time.Millisecond, constant: true}
	moving := &timedSource{chunks: 100, rows: 4, step: 1000}
	var stuckLeft atomic.Int64 // chunks the stuck source had left when the other ended
	moving.onNext = func(upto int64) {
		if upto == 99_999 {
			stuckLeft.Store(int64(stuck.chunks) - stuck.done.Load())
		}
	}
	sink := &rowCounter{}
	runJob(t, twoSources(moving, stuck, sink), JobOptions{Alloc: alloc, WatermarkAlignment: time.Second})
	if sink.rows[0].Load() != 400 || sink.rows[1].Load() != 1200 {
		t.Fatalf("the sink counted %d and %d rows, want 400 and 1200", sink.rows[0].Load(), sink.rows[1].Load())
	}
	if stuckLeft.Load() == 0 {
		t.Fatal("the moving source waited for the stuck one to end")
	}
}

// TestCaughtUpSourceHoldsNoOneBack reads a source that emits one chunk
// and then has nothing more to read (caught up, not ended) beside one that
// reads 100 seconds of event time: the second is held back at most
// briefly, never until the stall.
func TestCaughtUpSourceHoldsNoOneBack(t *testing.T) {
	alloc := exectest.Alloc(t)
	live := &tsSource{chunks: [][]int64{{0}}}
	backfill := &timedSource{chunks: 100, rows: 4, step: 1000}
	sink := &rowCounter{}
	job := startJob(t, twoSources(backfill, live, sink), JobOptions{Alloc: alloc, WatermarkAlignment: time.Second})
	deadline := time.Now().Add(10 * time.Second)
	for sink.rows[0].Load() < 400 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := sink.rows[0].Load(); got != 400 {
		t.Fatalf("the backfill delivered %d rows of 400", got)
	}
	if held := time.Duration(job.wmAlign.held.Load()); held >= alignStall {
		t.Fatalf("the backfill was held back %v: the caught-up source held it until the stall", held)
	}
}

// TestSplitsThatShareTimeStayWithinTheDrift runs one source stage at
// parallelism 2 whose first split reads 100 seconds of event time at once
// and whose second takes 2 ms a second. When its splits share their event
// time (WatermarkSpec.SplitsShareTime) and the job aligns splits, the fast
// one stays within the drift of the slow one; splits that do not share it
// (a file's byte ranges) read on, as does a job that aligns no splits.
func TestSplitsThatShareTimeStayWithinTheDrift(t *testing.T) {
	const step, drift = 1000, 2 * time.Second
	for _, tc := range []struct {
		share   bool
		align   time.Duration
		aligned bool
	}{{true, drift, true}, {false, drift, false}, {true, 0, false}} {
		alloc := exectest.Alloc(t)
		slow := &timedSource{chunks: 100, rows: 10, step: step, pause: 2 * time.Millisecond}
		fast := &timedSource{chunks: 100, rows: 10, step: step}
		var mu sync.Mutex
		var lead int64
		fast.onNext = func(upto int64) {
			mu.Lock()
			lead = max(lead, upto-slow.emitted.Load())
			mu.Unlock()
		}
		sink := &rowCounter{}
		g := GraphSpec{Stages: []StageSpec{
			{Parallelism: 2, Source: func(inst int) (exec.Source, error) {
				if inst == 0 {
					return fast, nil
				}
				return slow, nil
			}, Watermark: &WatermarkSpec{TimeCol: 0, SplitsShareTime: tc.share}},
			{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistSingle}}, Ops: []OpSpec{only("count", sink)}},
		}}
		job := runJob(t, g, JobOptions{Alloc: alloc, SplitAlignment: tc.align})
		if got := sink.rows[0].Load(); got != 2000 {
			t.Fatalf("%+v: the sink counted %d rows, want 2000", tc, got)
		}
		bound := drift.Milliseconds() + 2*step
		switch {
		case tc.aligned && lead > bound:
			t.Errorf("%+v: the fast split read %d ms past the slow one, more than %d", tc, lead, bound)
		case !tc.aligned && lead <= bound:
			t.Errorf("%+v: the fast split stayed within %d ms of the slow one (%d) though not aligned", tc, bound, lead)
		}
		if got := job.splitAlign[0] != nil; got != tc.aligned {
			t.Errorf("%+v: the scan has an alignment group: %v", tc, got)
		}
		if tc.aligned && job.splitAlign[0].held.Load() == 0 {
			t.Errorf("%+v: the fast split was never held back", tc)
		}
	}
}
