package cluster

import (
	"errors"
	"slices"
	"testing"
)

// TestFailingTasks: a task that failed and waits to start again is
// reported with why; one running, or one that has not failed, is not.
func TestFailingTasks(t *testing.T) {
	r := &fragRunner{tasks: map[int32]*task{
		3: {p: 3, err: errors.New("restoring checkpoint 7: broken")},
		1: {p: 1},
		5: {p: 5, err: errors.New("brokers unreachable")},
	}}
	got := r.failing()
	want := []string{"task 3: restoring checkpoint 7: broken", "task 5: brokers unreachable"}
	if !slices.Equal(got, want) {
		t.Errorf("failing: %q, want %q", got, want)
	}
	if got := r.owned(); !slices.Equal(got, []int32{1, 3, 5}) {
		t.Errorf("owned: %v", got)
	}
}
