package dataflow

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
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
type chanMessages struct {
	sourceBase
	ch chan exec.Chunk
}

func (s *chanMessages) Next(context.Context) (exec.Chunk, error) {
	return exec.Chunk{}, fmt.Errorf("read with NextMessage")
}
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
	for _, tt := range []struct {
		name  string
		graph func(s *timedSink) (GraphSpec, func())
	}{
		{"source stage idle", func(s *timedSink) (GraphSpec, func()) {
			src := exectest.NewSource(t, alloc)
			return GraphSpec{Stages: []StageSpec{sourceStage(src, only("timed", s))}}, func() { src.Add("bigint\n+I 1") }
		}},
		{"inbox idle", func(s *timedSink) (GraphSpec, func()) {
			src := exectest.NewSource(t, alloc)
			return GraphSpec{Stages: []StageSpec{sourceStage(src), stage(0, DistSingle, 1, only("timed", s))}},
				func() { src.Add("bigint\n+I 1") }
		}},
		{"message source idle", func(s *timedSink) (GraphSpec, func()) {
			src := &chanMessages{ch: make(chan exec.Chunk, 1)}
			return GraphSpec{Stages: []StageSpec{sourceStage(src, only("timed", s))}},
				func() { src.ch <- exec.Chunk{Batch: intBatch(alloc, 0, 1)} }
		}},
		{"busy", func(s *timedSink) (GraphSpec, func()) {
			return GraphSpec{Stages: []StageSpec{sourceStage(&endlessSource{}, only("timed", s))}}, func() {}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTimedSink(20 * time.Millisecond)
			g, feed := tt.graph(s)
			job := startJob(t, g, JobOptions{Alloc: alloc})
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
