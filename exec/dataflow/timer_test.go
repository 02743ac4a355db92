package dataflow

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// timedSink is a sink with a processing-time timer: a chunk arms it,
// interval after the chunk came, unless it is armed; OnTimer disarms it
// and reports the call on fired.
type timedSink struct {
	passthrough
	interval time.Duration
	now      func() time.Time
	due      time.Time
	fired    chan error // nil: OnTimer came on time
}

func newTimedSink(interval time.Duration) *timedSink {
	return &timedSink{interval: interval, fired: make(chan error, 1000)}
}

func (s *timedSink) Open(ctx context.Context, env *exec.Env) error { s.now = env.Now; return nil }
func (s *timedSink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if s.due.IsZero() {
		s.due = s.now().Add(s.interval)
	}
	return nil
}
func (s *timedSink) NextTimer() time.Time { return s.due }
func (s *timedSink) OnTimer(ctx context.Context, now time.Time, out exec.Emitter) error {
	var err error
	if s.due.IsZero() || now.Before(s.due) {
		err = fmt.Errorf("OnTimer at %v, but the timer is due at %v", now, s.due)
	}
	s.due = time.Time{}
	select {
	case s.fired <- err:
	default:
	}
	return nil
}

// chanMessages is a MessageSource whose chunks a test sends.
type chanMessages struct{ ch chan exec.Chunk }

func (s *chanMessages) Open(context.Context, *exec.Env) error { return nil }
func (s *chanMessages) Next(context.Context) (exec.Chunk, error) {
	return exec.Chunk{}, fmt.Errorf("read with NextMessage")
}
func (s *chanMessages) Wait(context.Context) error { return nil }
func (s *chanMessages) Close() error               { return nil }
func (s *chanMessages) NextMessage(ctx context.Context) (exec.Chunk, exec.Control, error) {
	select {
	case c := <-s.ch:
		return c, exec.Control{}, nil
	case <-ctx.Done():
		return exec.Chunk{}, exec.Control{}, ctx.Err()
	}
}

// TestProcessingTimerFires checks that an operator's timer fires once due
// whether its task waits for input — in a source stage, on an inbox, on a
// message source — or is kept busy by a source that always has data, and
// never before it is due.
func TestProcessingTimerFires(t *testing.T) {
	alloc := memory.NewGoAllocator()
	chunk := func() exec.Chunk {
		return exec.Chunk{Batch: types.BuildRecord(alloc, []string{"x"}, []types.T{types.BigIntT}, intRows(0, 1))}
	}
	sinkOps := func(s *timedSink) []OpSpec {
		return []OpSpec{{Name: "timed", New: func(int) (exec.Operator, error) { return s, nil }}}
	}
	for _, tt := range []struct {
		name  string
		graph func(s *timedSink) (GraphSpec, func())
	}{
		{"source stage idle", func(s *timedSink) (GraphSpec, func()) {
			src := newGrowingSource()
			return GraphSpec{Stages: []StageSpec{
				{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }, Ops: sinkOps(s)},
			}}, func() { src.add(1) }
		}},
		{"inbox idle", func(s *timedSink) (GraphSpec, func()) {
			src := newGrowingSource()
			return GraphSpec{Stages: []StageSpec{
				{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }},
				{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistSingle}}, Ops: sinkOps(s)},
			}}, func() { src.add(1) }
		}},
		{"message source idle", func(s *timedSink) (GraphSpec, func()) {
			src := &chanMessages{ch: make(chan exec.Chunk, 1)}
			return GraphSpec{Stages: []StageSpec{
				{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }, Ops: sinkOps(s)},
			}}, func() { src.ch <- chunk() }
		}},
		{"busy", func(s *timedSink) (GraphSpec, func()) {
			return GraphSpec{Stages: []StageSpec{
				{Parallelism: 1, Source: func(int) (exec.Source, error) { return &endlessSource{}, nil }, Ops: sinkOps(s)},
			}}, func() {}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTimedSink(20 * time.Millisecond)
			g, feed := tt.graph(s)
			job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
			if err != nil {
				t.Fatal(err)
			}
			defer job.Stop()
			feed()
			deadline := time.After(10 * time.Second)
			for range 2 { // the busy source arms the timer again at once
				select {
				case err := <-s.fired:
					if err != nil {
						t.Fatal(err)
					}
				case <-deadline:
					t.Fatal("the timer did not fire")
				}
				feed()
			}
			if st, err := job.State(); st != JobRunning {
				t.Fatalf("state %s, %v", st, err)
			}
		})
	}
}
