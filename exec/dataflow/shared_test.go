package dataflow

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/eddysql/eddy/exec"
)

// sharedSeen records the exec.Env.Shared each instance was opened with,
// by stage and instance.
type sharedSeen struct {
	mu   sync.Mutex
	seen map[[2]int]*exec.Shared
}

func (s *sharedSeen) record(stage int, env *exec.Env) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[[2]int{stage, env.Instance}] = env.Shared
}

// sharedSource is a source that ends at once, recording its Env.
type sharedSource struct {
	sourceBase
	seen *sharedSeen
}

func (s *sharedSource) Open(ctx context.Context, env *exec.Env) error {
	s.seen.record(0, env)
	return s.sourceBase.Open(ctx, env)
}

func (s *sharedSource) Next(context.Context) (exec.Chunk, error) { return exec.Chunk{}, io.EOF }

// sharedOp is an operator recording its Env.
type sharedOp struct {
	passthrough
	stage int
	seen  *sharedSeen
}

func (o *sharedOp) Open(_ context.Context, env *exec.Env) error {
	o.seen.record(o.stage, env)
	return nil
}

// TestJobSharedPerStage: the instances of a stage share one
// exec.Env.Shared, its source's and its operators' alike; another stage
// has its own.
func TestJobSharedPerStage(t *testing.T) {
	seen := &sharedSeen{seen: map[[2]int]*exec.Shared{}}
	op := func(stage int) OpSpec {
		return OpSpec{Name: "op", New: func(int) (exec.Operator, error) { return &sharedOp{stage: stage, seen: seen}, nil }}
	}
	src := StageSpec{Parallelism: 2, Source: func(int) (exec.Source, error) { return &sharedSource{seen: seen}, nil }}
	g := GraphSpec{Stages: []StageSpec{src, stage(0, DistHash, 3, op(1)), stage(1, DistSingle, 1, only("sink", &recorder{}))}}
	runJob(t, g, JobOptions{})
	s0, s1 := seen.seen[[2]int{0, 0}], seen.seen[[2]int{1, 0}]
	if s0 == nil || s1 == nil || s0 == s1 {
		t.Fatalf("stage 0 shares %p, stage 1 %p: want two distinct values", s0, s1)
	}
	for k, v := range seen.seen {
		if want := map[int]*exec.Shared{0: s0, 1: s1}[k[0]]; v != want {
			t.Errorf("stage %d instance %d has %p, want %p", k[0], k[1], v, want)
		}
	}
	if len(seen.seen) != 5 {
		t.Errorf("%d instances opened, want 5", len(seen.seen))
	}
}
