package dataflow

import (
	"sync/atomic"

	"github.com/eddysql/eddy/exec"
)

// Rescaling. A job's checkpoint serves any parallelism: state entries are
// keyed by key group, and an instance restores the groups it owns
// (exec.KeyGroupsOf). So a query changes parallelism by stopping its job
// at a checkpoint (StopAtCheckpoint) and starting the job of the new
// graph with Restore on the same store — each stateful operator named by
// the same OpSpec.StateKey in both, each source by the same
// StageSpec.SourceKey and at the same parallelism (a source's position is
// its split's).
//
// Every instance of the new job restores all of its groups from the
// store: an instance keeps nothing in memory across the move, even where
// its groups did not change owner. RestoreMoves tells how much of what
// was read belongs to groups that did change owner — what a move of only
// those groups, instance to instance, would have carried.

// restoreCounts counts the bytes of state entries a restoring job reads,
// per state table and key group. Its map is filled before the job's
// tasks start and only read after; the counts are added atomically, as
// several instances may read one table (each its own groups).
type restoreCounts struct {
	tables map[string]*[exec.NumKeyGroups]atomic.Int64
}

// newRestoreCounts makes the counts of the stateful operators of stages.
func newRestoreCounts(stages []*stageRun) *restoreCounts {
	c := &restoreCounts{tables: map[string]*[exec.NumKeyGroups]atomic.Int64{}}
	for _, sr := range stages {
		for _, t := range sr.tasks {
			if t.state == nil {
				continue
			}
			for i, op := range t.state.ops {
				if op != nil && c.tables[t.state.names[i]] == nil {
					c.tables[t.state.names[i]] = new([exec.NumKeyGroups]atomic.Int64)
				}
			}
		}
	}
	return c
}

// of returns the counts of table name, or nil.
func (c *restoreCounts) of(name string) *[exec.NumKeyGroups]atomic.Int64 {
	if c == nil {
		return nil
	}
	return c.tables[name]
}

// StateMove is what a job read when it restored a checkpoint that another
// graph (the same query at another parallelism) took.
type StateMove struct {
	// Read is the bytes of state entries (keys and values) the job's
	// operators read.
	Read int64
	// Moved is the part of Read in key groups whose instance changed: the
	// state a move of only the groups that change owner would carry.
	Moved int64
	// MovedGroups counts the key groups, summed over the stateful
	// operators, whose instance changed.
	MovedGroups int
}

// RestoreMoves returns what the job read when it restored the checkpoint
// of prev, the graph whose job took it: an operator's groups moved when
// the stage running it has another parallelism in prev. An operator
// prev did not have (no table of that name) counts as moved whole.
func (j *Job) RestoreMoves(prev GraphSpec) StateMove {
	was := map[string]int{}
	for si, s := range prev.Stages {
		for i := range s.Ops {
			was[s.StateTable(si, i)] = s.Parallelism
		}
	}
	var m StateMove
	seen := map[string]bool{}
	for si, sr := range j.stages {
		for i := range sr.spec.Ops {
			name := sr.spec.StateTable(si, i)
			counts := j.restored.of(name)
			if counts == nil || seen[name] {
				continue
			}
			seen[name] = true
			p, before := sr.spec.Parallelism, was[name]
			for g := range counts {
				n := counts[g].Load()
				m.Read += n
				if before == 0 || exec.InstanceForKeyGroup(g, before) != exec.InstanceForKeyGroup(g, p) {
					m.Moved += n
					m.MovedGroups++
				}
			}
		}
	}
	return m
}
