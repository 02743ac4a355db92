package dataflow

import (
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// stampSource emits chunks rows of column x, every value the time (Unix
// nanoseconds) the chunk left it, pausing pause before each, and records
// every stamp in log.
type stampSource struct {
	sourceBase
	chunks, rows int
	pause        time.Duration
	log          *stampLog
	sent         int
}

func (s *stampSource) Next(context.Context) (exec.Chunk, error) {
	if s.sent == s.chunks {
		return exec.Chunk{}, io.EOF
	}
	s.sent++
	time.Sleep(s.pause)
	stamp := time.Now().UnixNano()
	rows := make([][]types.Datum, s.rows)
	for i := range rows {
		rows[i] = []types.Datum{types.IntDatum(stamp)}
	}
	s.log.add(stamp, s.rows)
	return exec.Chunk{Batch: types.BuildRecord(s.alloc, []string{"x"}, []types.T{types.BigIntT}, rows)}, nil
}

// stampLog records the stamps of the rows every source emitted.
type stampLog struct {
	mu     sync.Mutex
	stamps []int64
}

func (l *stampLog) add(stamp int64, n int) {
	l.mu.Lock()
	for range n {
		l.stamps = append(l.stamps, stamp)
	}
	l.mu.Unlock()
}

// before returns how many rows were stamped before t.
func (l *stampLog) before(t int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.stamps {
		if s < t {
			n++
		}
	}
	return n
}

// stampSink records the stamps of the rows that reach it.
type stampSink struct {
	nopOp
	got []int64 // read by the sink's task only (the marker hook runs there)
}

func (s *stampSink) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	xs := c.Batch.Column(0).(*array.Int64)
	s.got = append(s.got, xs.Int64Values()...)
	return nil
}

// TestLatencyMarkersInOrder: latency markers travel in order with the
// rows, across a hash exchange from two sources to two instances and then
// to the sink: when a round reaches the sink, every row any source
// emitted before the round's time has reached it. The job summarizes the
// markers' latencies per policy interval.
func TestLatencyMarkersInOrder(t *testing.T) {
	alloc := exectest.Alloc(t)
	log := &stampLog{}
	sink := &stampSink{}
	var markers, late atomic.Int64
	var lastRound uint64
	check := func(m exec.Control) {
		markers.Add(1)
		if m.Epoch <= lastRound {
			t.Errorf("round %d reached the sink after round %d", m.Epoch, lastRound)
		}
		lastRound = m.Epoch
		got := 0
		for _, s := range sink.got {
			if s < m.Emitted {
				got++
			}
		}
		if want := log.before(m.Emitted); got != want {
			late.Add(1)
			t.Errorf("round %d reached the sink after %d of the %d rows emitted before it", m.Epoch, got, want)
		}
	}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 2, Source: func(int) (exec.Source, error) {
			return &stampSource{chunks: 150, rows: 8, pause: 300 * time.Microsecond, log: log}, nil
		}},
		stage(0, DistHash, 2, only("pass", &passthrough{})),
		stage(1, DistSingle, 1, only("sink", sink)),
	}}
	job := startJob(t, g, JobOptions{Alloc: alloc, PolicyInterval: 20 * time.Millisecond, LatencyInterval: 2 * time.Millisecond,
		onMarker: check})
	// The intervals while the job runs: the last may come after the
	// sources ended, without markers.
	var l Latency
	for done := false; !done; {
		select {
		case <-job.Done():
			done = true
		case <-time.After(time.Millisecond):
		}
		if iv, ok := job.LastInterval(); ok && iv.Latency.Markers > 0 {
			l = iv.Latency
		}
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := markers.Load(); n < 5 {
		t.Errorf("%d latency markers reached the sink, want several", n)
	}
	if len(sink.got) != 2*150*8 {
		t.Errorf("the sink got %d rows, want %d", len(sink.got), 2*150*8)
	}
	if l.Markers == 0 || l.P50 <= 0 || l.P50 > l.P95 || l.P95 > l.P99 || l.P99 > l.Max || l.Max > 10*time.Second {
		t.Errorf("latency of an interval %+v: want markers and ordered percentiles", l)
	}
}

// TestLatencyMarkersOff: a job without a latency interval sends no marker
// and its source tasks never look for one.
func TestLatencyMarkersOff(t *testing.T) {
	alloc := exectest.Alloc(t)
	var markers atomic.Int64
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 2, Source: func(int) (exec.Source, error) {
			return &stampSource{chunks: 50, rows: 8, pause: 300 * time.Microsecond, log: &stampLog{}}, nil
		}},
		stage(0, DistHash, 2, only("pass", &passthrough{})),
		stage(1, DistSingle, 1, only("sink", &stampSink{})),
	}}
	job := runJob(t, g, JobOptions{Alloc: alloc, PolicyInterval: 2 * time.Millisecond,
		onMarker: func(exec.Control) { markers.Add(1) }})
	if n := markers.Load(); n != 0 {
		t.Errorf("%d latency markers reached the sink with markers off", n)
	}
	for _, sr := range job.stages {
		for _, tk := range sr.tasks {
			if tk.markers {
				t.Errorf("%s looks for latency markers", tk.name)
			}
		}
	}
	if iv, ok := job.LastInterval(); !ok || iv.Latency != (Latency{}) {
		t.Errorf("interval %v with latency %+v, want one without", ok, iv.Latency)
	}
}

// TestLatencyAlignment: a round is released once every live sender has
// sent it or a later one, in order, with the round's time; an ended
// sender holds none back; a round no one sent is skipped.
func TestLatencyAlignment(t *testing.T) {
	a := newAligner(3)
	lat := func(round uint64) exec.Control {
		return exec.Control{Kind: exec.LatencyMarker, Epoch: round, Emitted: int64(round) * 100}
	}
	rounds := func(cs []exec.Control) []uint64 {
		var out []uint64
		for _, c := range cs {
			if c.Kind == exec.LatencyMarker {
				if c.Emitted != int64(c.Epoch)*100 {
					t.Errorf("round %d emitted at %d", c.Epoch, c.Emitted)
				}
				out = append(out, c.Epoch)
			}
		}
		return out
	}
	steps := []struct {
		sender int
		m      exec.Control
		want   []uint64
	}{
		{0, lat(1), nil},
		{1, lat(1), nil},
		{2, lat(1), []uint64{1}},
		{0, lat(2), nil},
		{1, lat(3), nil},         // sender 1 skips round 2
		{2, lat(3), []uint64{2}}, // round 3 still waits for sender 0
		{0, lat(5), []uint64{3}}, // round 4 was never sent: skipped
		{2, exec.Control{Kind: exec.EndOfInput}, nil},
		{1, lat(5), []uint64{5}},
		{0, lat(6), nil},
		{1, exec.Control{Kind: exec.EndOfInput}, []uint64{6}}, // the last live sender has sent 6
	}
	for i, s := range steps {
		if got := rounds(a.add(s.sender, s.m)); !slices.Equal(got, s.want) {
			t.Errorf("step %d (%v from %d): released %v, want %v", i, s.m, s.sender, got, s.want)
		}
	}
}

// TestLatencyOf: nearest-rank percentiles of the markers' latencies.
func TestLatencyOf(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	want := Latency{Markers: 100, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond, P99: 99 * time.Millisecond,
		Max: 100 * time.Millisecond}
	if got := LatencyOf(ds); got != want {
		t.Errorf("LatencyOf(1..100 ms) = %+v, want %+v", got, want)
	}
	if got := LatencyOf([]time.Duration{7}); got != (Latency{Markers: 1, P50: 7, P95: 7, P99: 7, Max: 7}) {
		t.Errorf("LatencyOf(one) = %+v", got)
	}
	if got := LatencyOf(nil); got != (Latency{}) {
		t.Errorf("LatencyOf(none) = %+v", got)
	}
}
