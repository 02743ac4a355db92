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
// Each instance of the new job reads from the store the groups it owns
// and does not hold already: with a handoff from the stopped job
// (StopAndHandOver, handoff.go), an instance of an operator that can
// adopt key groups (exec.GroupMover) takes over the old instance it is
// matched with (exec.MatchInstances) and reads only the groups that instance
// did not own; every other instance reads all its groups. RestoreMoves
// tells how much was read, and how much of it belongs to the groups that
// changed instance under that matching — what a move of only those
// groups has to carry.

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
	// Moved is the part of Read in key groups that changed instance: the
	// groups a new instance owns that the old instance it is matched with
	// (exec.MatchInstances) did not. It is what a move of only those groups
	// carries; Read exceeds it by what instances that kept nothing in
	// memory read of the groups they would have kept.
	Moved int64
	// MovedGroups counts the key groups, summed over the stateful
	// operators, that changed instance.
	MovedGroups int
}

// RestoreMoves returns what the job read when it restored the checkpoint
// of prev, the graph whose job took it: an operator's groups changed
// instance when the stage running it has another parallelism in prev,
// and its instances, matched by exec.MatchInstances, own them differently. An
// operator prev did not have (no table of that name) counts as moved
// whole.
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
			match := exec.MatchInstances(before, p)
			for g := range counts {
				n := counts[g].Load()
				m.Read += n
				if before == 0 || match[exec.InstanceForKeyGroup(g, p)] != exec.InstanceForKeyGroup(g, before) {
					m.Moved += n
					m.MovedGroups++
				}
			}
		}
	}
	return m
}
