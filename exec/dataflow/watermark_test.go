package dataflow

import (
	"context"
	"io"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// tsSource emits prepared chunks of one TIMESTAMP column (ms values; -1 is
// NULL), then ends or reports being caught up.
type tsSource struct {
	sourceBase
	chunks  [][]int64
	bounded bool
}

func (s *tsSource) Next(ctx context.Context) (exec.Chunk, error) {
	if len(s.chunks) == 0 {
		if s.bounded {
			return exec.Chunk{}, io.EOF
		}
		return exec.Chunk{}, exec.ErrCaughtUp
	}
	vals := s.chunks[0]
	s.chunks = s.chunks[1:]
	rows := make([][]types.Datum, len(vals))
	for i, v := range vals {
		rows[i] = []types.Datum{types.IntDatum(v)}
		if v < 0 {
			rows[i][0] = types.NullDatum
		}
	}
	return exec.Chunk{Batch: types.BuildRecord(s.alloc, []string{"ts"}, []types.T{types.TimestampT(3)}, rows)}, nil
}
func (s *tsSource) Wait(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }

// eventLog records, in order, the rows and the control messages a sink saw.
type eventLog struct {
	nopOp
	mu     sync.Mutex
	events []string
}

func (l *eventLog) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range types.Rows(c.Batch, []types.T{types.TimestampT(3)}) {
		if r[0].Null {
			l.events = append(l.events, "row NULL")
		} else {
			l.events = append(l.events, "row "+types.FormatTimestamp(r[0].I, 0)[17:])
		}
	}
	return nil
}
func (l *eventLog) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Kind == exec.Watermark && !m.Idle && m.Watermark != exec.MaxWatermark {
		l.events = append(l.events, "watermark "+types.FormatTimestamp(m.Watermark, 0)[17:])
	} else {
		l.events = append(l.events, m.String())
	}
	return nil
}

func (l *eventLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

func TestWatermarksLateRowsAndEndOfInput(t *testing.T) {
	alloc := exectest.Alloc(t)
	s := int64(1000)
	src := &tsSource{bounded: true, chunks: [][]int64{
		{10 * s, 12 * s},    // watermark 12 - 2 = 10
		{9 * s, 11 * s, -1}, // 9 is late (behind 10); 11 is not; NULL is never late
		{20 * s},            // watermark 18
		{17 * s, 18 * s},    // 17 late, 18 on the watermark is not
	}}
	var routed []int64
	var positions []int64
	sink := &eventLog{}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil },
			Watermark: &WatermarkSpec{TimeCol: 0, DelayMs: 2 * s, OnLate: func(_ context.Context, pos int64, late exec.Chunk) error {
				positions = append(positions, pos)
				for _, r := range types.Rows(late.Batch, []types.T{types.TimestampT(3)}) {
					routed = append(routed, r[0].I/s)
				}
				return nil
			}}},
		stage(0, DistSingle, 1, only("log", sink)),
	}}
	runJob(t, g, JobOptions{Alloc: alloc})
	want := []string{
		"row 10", "row 12", "watermark 10",
		"row 11", "row NULL",
		"row 20", "watermark 18",
		"row 18",
		"caught-up(input 0)", "caught-up", "watermark(+inf)", "end-of-input",
	}
	if got := sink.get(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	if !reflect.DeepEqual(routed, []int64{9, 17}) || !reflect.DeepEqual(positions, []int64{2, 6}) {
		t.Fatalf("late rows %v at %v, want [9 17] at [2 6]", routed, positions)
	}
}

func TestIdleSourceStopsHoldingBackTheWatermark(t *testing.T) {
	alloc := exectest.Alloc(t)
	s := int64(1000)
	busy := &tsSource{chunks: [][]int64{{100 * s}}}
	quiet := &tsSource{chunks: [][]int64{{5 * s}}}
	sink := &eventLog{}
	spec := func(idle time.Duration) *WatermarkSpec {
		return &WatermarkSpec{TimeCol: 0, IdleTimeout: idle}
	}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return busy, nil }, Watermark: spec(0)},
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return quiet, nil }, Watermark: spec(50 * time.Millisecond)},
		{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistSingle}, {From: 1, Dist: DistSingle, Input: 0}},
			Ops: []OpSpec{only("log", sink)}},
	}}
	startJob(t, g, JobOptions{Alloc: alloc})
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range sink.get() {
			if e == "watermark 40" { // 100 s → minutes:seconds "01:40" sliced to its seconds
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the busy source's watermark never got through: %v", sink.get())
}

func TestAlignerIdleSenders(t *testing.T) {
	a := newAligner(2)
	a.add(0, exec.Control{Kind: exec.Watermark, Watermark: 10})
	if got := a.add(1, exec.Control{Kind: exec.Watermark, Watermark: 3, Idle: true}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Watermark, Watermark: 10}}) {
		t.Fatalf("idle sender must not hold the minimum: %v", got)
	}
	if got := a.add(0, exec.Control{Kind: exec.Watermark, Watermark: 10, Idle: true}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Watermark, Watermark: 10, Idle: true}}) {
		t.Fatalf("all idle: %v", got)
	}
	if got := a.add(1, exec.Control{Kind: exec.Watermark, Watermark: 12}); !reflect.DeepEqual(got, []exec.Control{{Kind: exec.Watermark, Watermark: 12}}) {
		t.Fatalf("active again: %v", got)
	}
}
