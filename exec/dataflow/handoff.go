package dataflow

import (
	"context"
	"fmt"
	"sync"

	"github.com/eddysql/eddy/exec"
)

// Handing operator instances over at a rescale (exec.GroupMover). A job
// stopped by StopAndHandOver keeps, instead of closing them, the
// instances of its stateful operators that can adopt key groups, once
// every one of them has stopped at the barrier — their state is then
// exactly the checkpoint's for the groups they own. The job of the new
// graph, started with Restore on the same store and JobOptions.Handoff,
// gives each of its instances of an operator (named by its state table)
// the old instance exec.MatchInstances pairs it with: after Open the new
// instance adopts the old one's state, keeps the groups it still owns,
// drops the others and restores only the groups it gains from the store.
// Instances that find no partner, or operators that do not implement
// exec.GroupMover, restore all their groups from the store as before.

// Handoff holds the operator instances a job stopped at a checkpoint
// hands to the job that resumes from it. StartJob takes it over: it gives
// the instances out and closes the ones it does not use, and so does
// Close, for a handoff no job takes.
type Handoff struct {
	epoch uint64 // the checkpoint the instances hold the state of
	mu    sync.Mutex
	// tables holds, by state table, the instances of its operator, by
	// instance number, and the parallelism of its stage.
	tables map[string]*handedOps
}

// handedOps are the handed instances of one operator.
type handedOps struct {
	parallelism int
	ops         map[int]exec.Operator
}

// handed is an old instance given to a new one, with the key groups it
// owned.
type handed struct {
	op   exec.Operator
	held exec.KeyGroupRange
}

// put hands over instance inst (of parallelism) of the operator whose
// state table is table.
func (h *Handoff) put(table string, inst, parallelism int, op exec.Operator) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.tables[table]
	if t == nil {
		t = &handedOps{parallelism: parallelism, ops: map[int]exec.Operator{}}
		h.tables[table] = t
	}
	t.ops[inst] = op
}

// Epoch returns the checkpoint whose state the handed instances hold.
func (h *Handoff) Epoch() uint64 {
	if h == nil {
		return 0
	}
	return h.epoch
}

// Len returns the number of instances held.
func (h *Handoff) Len() int {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, t := range h.tables {
		n += len(t.ops)
	}
	return n
}

// Close closes the instances no job took. It is safe on nil and more
// than once.
func (h *Handoff) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	tables := h.tables
	h.tables = map[string]*handedOps{}
	h.mu.Unlock()
	for _, t := range tables {
		for _, op := range t.ops {
			op.Close()
		}
	}
}

// giveOut gives every task of the job's stateful operators the old
// instance its instance is matched with, if the handoff holds it, and
// closes the instances left. The handoff must hold the state of the
// checkpoint the job restores; otherwise it is closed whole.
func (j *Job) giveOut(h *Handoff) {
	if h == nil {
		return
	}
	defer h.Close()
	if !j.restore || h.epoch != j.restoredEpoch {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			if t.state == nil {
				continue
			}
			for i, op := range t.state.ops {
				if op == nil {
					continue
				}
				if _, ok := op.(exec.GroupMover); !ok {
					continue
				}
				old := h.tables[t.state.names[i]]
				if old == nil {
					continue
				}
				inst := exec.MatchInstances(old.parallelism, sr.spec.Parallelism)[t.env.Instance]
				if o, ok := old.ops[inst]; ok && inst >= 0 {
					t.state.adopt[i] = handed{op: o, held: exec.KeyGroupsOf(inst, old.parallelism)}
					delete(old.ops, inst)
				}
			}
		}
	}
}

// adoptOrRestore has stateful operator i rebuild its state: from the old
// instance handed to it, reading only the groups it gains, or else all
// of them from r. The old instance is closed either way.
func (s *taskState) adoptOrRestore(ctx context.Context, i int, r stateReader) error {
	old := s.adopt[i]
	if old.op != nil {
		s.adopt[i] = handed{}
		ok, err := s.ops[i].(exec.GroupMover).AdoptGroups(ctx, old.op, old.held, r)
		if cerr := old.op.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("closing the instance it took over: %w", cerr)
		}
		if err != nil || ok {
			return err
		}
	}
	return s.ops[i].Restore(ctx, r, s.groups)
}

// closeAdopted closes the old instances handed to the task's operators
// and not taken over yet (the task failed or stopped first).
func (s *taskState) closeAdopted() {
	if s == nil {
		return
	}
	for i, h := range s.adopt {
		if h.op != nil {
			h.op.Close()
			s.adopt[i] = handed{}
		}
	}
}

// handOver hands the task's instances of exec.GroupMover operators to
// the job's handoff, if it has one, instead of closing them. The task has
// stopped at the barrier of StopAndHandOver and written its snapshot of
// it.
func (t *task) handOver() {
	h := t.job.handoff.Load()
	if h == nil || t.state == nil {
		return
	}
	for i, op := range t.state.ops {
		if op == nil {
			continue
		}
		if _, ok := op.(exec.GroupMover); !ok {
			continue
		}
		h.put(t.state.names[i], t.env.Instance, t.env.Parallelism, t.chain.ops[i])
		t.chain.handed[i] = true
	}
}

// StopAndHandOver stops the job at a checkpoint, as StopAtCheckpoint
// does, and returns, with the epoch, the instances of its operators that
// can adopt key groups (exec.GroupMover), for the job that resumes from
// the epoch to take over (JobOptions.Handoff). Every instance it holds
// stopped at the checkpoint's barrier, so its state is the checkpoint's.
// On an error the instances are closed and the handoff is nil.
func (j *Job) StopAndHandOver(ctx context.Context) (uint64, *Handoff, error) {
	h := &Handoff{tables: map[string]*handedOps{}}
	j.handoff.Store(h)
	epoch, err := j.StopAtCheckpoint(ctx)
	if err != nil {
		h.Close()
		return 0, nil, err
	}
	if epoch != j.stopAt.Load() {
		// The job ended first and took its final checkpoint: no task
		// stopped at the barrier, and none handed anything over.
		h.Close()
	}
	h.epoch = epoch
	return epoch, h, nil
}
