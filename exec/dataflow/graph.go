package dataflow

import (
	"errors"
	"github.com/eddysql/eddy/exec"
)

// OpSpec describes one operator of a stage's chain.
type OpSpec struct {
	// Name is the operator's one-line description (EXPLAIN ANALYZE).
	Name string
	// NodeID is the physical plan node the operator runs (0: none).
	NodeID int
	// New creates the operator for one parallel instance.
	New func(instance int) (exec.Operator, error)
	// StateKey names the operator's state table in the job's store when
	// it is stateful (empty: "stage<i>/op<j>", by its place in the
	// graph). The builder names it by the operator's place in the plan,
	// which a change of parallelism keeps while it moves exchanges and so
	// renumbers stages: a checkpoint taken at one parallelism is then
	// restored at another (a rescale).
	StateKey string
	// AnyDistribution says the operator's state restores whatever the
	// distribution of its inputs (a join whose distribution switches at
	// run time): the state layout does not record it.
	AnyDistribution bool
}

// InputSpec connects a stage to an upstream stage through an exchange.
type InputSpec struct {
	From  int // index of the upstream stage
	Dist  Distribution
	Keys  []int // hash keys (input ordinals), for DistHash
	Input int   // which input of the stage's first operator it feeds
	// NodeID is the physical plan's exchange node (0: none), for
	// observers to name the exchange.
	NodeID int
	// IgnoreWatermarks makes the stage's watermark the minimum over its
	// other inputs only: a lookup join's table side, whose rows carry no
	// event time, must not hold back the stream's watermark.
	IgnoreWatermarks bool
	// Project, when set, are the upstream stage's output columns this
	// input receives, in order (Keys index them): a stage that several
	// inputs read — a sub-plan the query uses in several places, run
	// once — sends each the columns it wants.
	Project []int
}

// StageSpec describes a stage: either a source (Source set, no Inputs) or a
// consumer of exchanges, followed by a chain of fused operators.
type StageSpec struct {
	Parallelism int
	Source      func(instance int) (exec.Source, error)
	SourceName  string
	// SourceNodeID is the physical plan node of the source (0: none).
	SourceNodeID int
	// SourceKey names the table of the source's positions in the job's
	// store (empty: "stage<i>/source"), as OpSpec.StateKey names an
	// operator's.
	SourceKey string
	// Watermark, for a source stage, generates watermarks and drops late
	// rows (nil: the source has no event time).
	Watermark *WatermarkSpec
	Inputs    []InputSpec
	Ops       []OpSpec

	// Keep, for a source stage, appends to every chunk the probability
	// that load shedding kept its rows, after shedding (shed_keep.go).
	Keep bool
}

// GraphSpec is a dataflow: stages in topological order (every stage after
// the stages it reads). The last stage ends in the query's sink and runs as
// one instance. A stage's output feeds one input of a later stage, or
// several (a shared sub-plan), each through its own exchange; every stage
// but the last feeds at least one.
type GraphSpec struct {
	Stages []StageSpec
}

func (g *GraphSpec) validate() error {
	if len(g.Stages) == 0 {
		return errors.New("exec: empty dataflow")
	}
	for i, s := range g.Stages {
		if s.Parallelism < 1 {
			return errors.New("exec: stage with parallelism below 1")
		}
		if (s.Source == nil) == (len(s.Inputs) == 0) {
			return errors.New("exec: a stage needs either a source or inputs")
		}
		for _, in := range s.Inputs {
			if in.From >= i {
				return errors.New("exec: stages are not in topological order")
			}
			if in.Dist == DistForward && g.Stages[in.From].Parallelism != s.Parallelism {
				return errors.New("exec: forward exchange between stages of different parallelism")
			}
			for _, c := range in.Project {
				if c < 0 {
					return errors.New("exec: an input projects a negative column")
				}
			}
		}
	}
	return nil
}
