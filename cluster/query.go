package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/storage/kafkastate"
)

// QuerySpec is a continuous query the cluster runs.
type QuerySpec struct {
	// ID names the query's topics, consumer groups and transactional
	// ids: every member must give the same query the same ID (the
	// catalog's object id, which the command log makes agree).
	ID   uint64
	Name string
	// Graph is the query's dataflow, planned at a parallelism above one
	// so that every exchange its results depend on is in it, ending in
	// the sink's operator.
	Graph dataflow.GraphSpec
	// SchemaOf returns the schema of the rows through an exchange node.
	SchemaOf func(nodeID int) (*arrow.Schema, error)
	// Output is the schema of the query's rows, the sink's input.
	Output *arrow.Schema
	// View says the sink keeps a view's rows: it runs on every member
	// (its replica) over a changelog topic of the query's output, so
	// that a pull query on any member sees the whole view. Otherwise
	// each task of the last fragment runs its own sink, made by SinkFor
	// for the task's name (which sinks make their transactional ids of).
	View    bool
	SinkFor func(task string) (dataflow.OpSpec, error)
	// Options are the base options of the tasks' and the replica's jobs.
	Options dataflow.JobOptions
	// CheckpointInterval is how often tasks checkpoint: what they
	// publish becomes visible downstream at that pace (default 1s).
	CheckpointInterval time.Duration
}

// Query is a cluster query's share on this member: the tasks the
// consumer groups assigned it, and a view's replica.
type Query struct {
	m       *Member
	spec    QuerySpec
	split   *Split
	prefix  string
	ctx     context.Context
	cancel  context.CancelFunc
	frags   []*fragRunner // by fragment; nil for a Replica fragment
	replica *dataflow.Job
	changes int // the edge a view's replica reads
}

// partitioned is a source whose partitions a task chooses: a Kafka
// source.
type partitioned interface {
	exec.Source
	ReadPartitions(ps []int32)
	Topic() string
	TopicPartitions(ctx context.Context) (int, error)
}

// kafkaOf returns the partitioned source s is or wraps (a wrapper says
// what it wraps with an Unwrap method).
func kafkaOf(s exec.Source) (partitioned, bool) {
	for {
		if ps, ok := s.(partitioned); ok {
			return ps, true
		}
		w, ok := s.(interface{ Unwrap() exec.Source })
		if !ok {
			return nil, false
		}
		s = w.Unwrap()
	}
}

// Start runs the member's share of the query: it cuts its dataflow into
// fragments, makes the topics they exchange rows and keep state in, joins
// each fragment's consumer group, runs the tasks assigned to it and, for
// a view, its replica.
func (m *Member) Start(ctx context.Context, spec QuerySpec) (*Query, error) {
	if spec.CheckpointInterval <= 0 {
		spec.CheckpointInterval = time.Second
	}
	sp, err := SplitGraph(spec.Graph, spec.SchemaOf)
	if err != nil {
		return nil, err
	}
	q := &Query{m: m, spec: spec, split: sp, prefix: m.prefix(spec.ID), changes: -1}
	if err := q.bind(ctx); err != nil {
		return nil, err
	}
	if err := q.makeTopics(ctx); err != nil {
		return nil, err
	}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	q.frags = make([]*fragRunner, len(sp.Fragments))
	for fi, f := range sp.Fragments {
		if f.Replica {
			continue
		}
		if q.frags[fi], err = q.runFragment(fi); err != nil {
			q.Stop()
			return nil, err
		}
	}
	if spec.View {
		if q.replica, err = q.startReplica(); err != nil {
			q.Stop()
			return nil, err
		}
	}
	m.register(q)
	return q, nil
}

// bind counts each fragment's tasks, sizes and names the edges, and for a
// view moves the sink out of the last fragment, which then writes the
// view's changelog.
func (q *Query) bind(ctx context.Context) error {
	sp := q.split
	for fi := range sp.Fragments {
		f := &sp.Fragments[fi]
		if f.Source >= 0 {
			src, err := f.Stages[f.Source].Source(0)
			if err != nil {
				return err
			}
			ps, ok := kafkaOf(src)
			if !ok {
				src.Close()
				return notSupported("%s (a cluster's queries read Kafka streams)", f.Stages[f.Source].SourceName)
			}
			n, err := ps.TopicPartitions(ctx)
			src.Close()
			if err != nil {
				return err
			}
			f.Tasks = n
			continue
		}
		f.Tasks = q.m.cfg.Partitions
		for _, ei := range f.Readers {
			if sp.Edges[ei].Dist == dataflow.DistSingle {
				f.Tasks = 1
			}
		}
	}
	for ei := range sp.Edges {
		e := &sp.Edges[ei]
		e.Partitions = sp.Fragments[e.To].Tasks
		if e.Partitions != 1 && e.Dist == dataflow.DistSingle {
			return notSupported("a stage reading a gathered (single) exchange and a partitioned one")
		}
		e.Topic = fmt.Sprintf("%s-e%d", q.prefix, ei)
	}
	if !q.spec.View {
		return nil
	}
	f := &sp.Fragments[sp.Sink]
	last := &f.Stages[len(f.Stages)-1]
	last.Ops = slices.Clone(last.Ops[:len(last.Ops)-1])
	if gathersOnly(sp, f) {
		// The edge into it is the view's changes already.
		f.Replica = true
		q.changes = f.Readers[0]
		return nil
	}
	sp.Edges = append(sp.Edges, Edge{From: sp.Sink, To: -1, Dist: dataflow.DistSingle, Schema: q.spec.Output,
		Partitions: 1, Topic: q.prefix + "-changes"})
	f.Out, f.OutStage = len(sp.Edges)-1, len(f.Stages)-1
	q.changes = f.Out
	return nil
}

// gathersOnly reports whether fragment f, its sink removed, does nothing
// but read one gathered edge.
func gathersOnly(sp *Split, f *Fragment) bool {
	if len(f.Readers) != 1 || sp.Edges[f.Readers[0]].Dist != dataflow.DistSingle {
		return false
	}
	for _, st := range f.Stages[1:] {
		if len(st.Ops) > 0 {
			return false
		}
	}
	return true
}

// makeTopics creates the edges' topics and the fragments' state topics.
func (q *Query) makeTopics(ctx context.Context) error {
	for ei, e := range q.split.Edges {
		kind := edgeTopic
		if ei == q.changes {
			kind = changesTopic
		}
		if err := q.m.ensureTopic(ctx, e.Topic, e.Partitions, kind); err != nil {
			return err
		}
	}
	for fi, f := range q.split.Fragments {
		if f.Replica {
			continue
		}
		if err := kafkastate.CreateTopic(ctx, q.m.adm, q.stateTopic(fi), int32(f.Tasks)); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
	}
	return nil
}

// stateTopic is fragment fi's state topic: partition p holds task p's
// checkpoints.
func (q *Query) stateTopic(fi int) string { return fmt.Sprintf("%s-f%d-state", q.prefix, fi) }

// taskName names task p of fragment fi, and prefixes its transactional
// ids.
func (q *Query) taskName(fi int, p int32) string { return fmt.Sprintf("%s-f%d-t%d", q.prefix, fi, p) }

// taskGraph is the dataflow of task p of fragment fi.
func (q *Query) taskGraph(fi int, p int32) (dataflow.GraphSpec, error) {
	sp, m := q.split, q.m
	f := sp.Fragments[fi]
	stages := slices.Clone(f.Stages)
	for k, ei := range f.Readers {
		e := sp.Edges[ei]
		cfg := ReaderConfig{Brokers: m.cfg.Brokers, Topic: e.Topic, Partition: p, Producers: sp.Fragments[e.From].Tasks, Schema: e.Schema}
		if e.Partitions == 1 {
			cfg.Partition = 0
		}
		stages[k].Source = func(int) (exec.Source, error) { return NewReader(cfg), nil }
		stages[k].SourceKey = fmt.Sprintf("source/edge%d", ei)
	}
	if f.Source >= 0 {
		orig := stages[f.Source].Source
		stages[f.Source].Source = func(i int) (exec.Source, error) {
			s, err := orig(i)
			if err != nil {
				return nil, err
			}
			ps, ok := kafkaOf(s)
			if !ok {
				s.Close()
				return nil, fmt.Errorf("cluster: %s is not a Kafka source", f.Stages[f.Source].SourceName)
			}
			ps.ReadPartitions([]int32{p})
			return s, nil
		}
	}
	name := q.taskName(fi, p)
	if f.Out >= 0 {
		e := sp.Edges[f.Out]
		cfg := WriterConfig{Brokers: m.cfg.Brokers, Topic: e.Topic, Partitions: e.Partitions, Dist: e.Dist, Keys: e.Keys,
			Producer: int(p), TxnPrefix: name}
		st := &stages[f.OutStage]
		st.Ops = append(slices.Clone(st.Ops), dataflow.OpSpec{Name: "Shuffle to " + e.Topic, StateKey: "state/out",
			New: func(int) (exec.Operator, error) { return NewWriter(cfg), nil }})
	} else {
		if q.spec.SinkFor == nil {
			return dataflow.GraphSpec{}, errors.New("cluster: a query that is not a view needs SinkFor")
		}
		sink, err := q.spec.SinkFor(name)
		if err != nil {
			return dataflow.GraphSpec{}, err
		}
		st := &stages[len(stages)-1]
		ops := slices.Clone(st.Ops)
		sink.StateKey = ops[len(ops)-1].StateKey
		ops[len(ops)-1] = sink
		st.Ops = ops
	}
	return dataflow.GraphSpec{Stages: stages}, nil
}

// startReplica starts the job that keeps this member's copy of a view:
// the view's sink over its changelog, read from the start.
func (q *Query) startReplica() (*dataflow.Job, error) {
	sp := q.split
	e := sp.Edges[q.changes]
	cfg := ReaderConfig{Brokers: q.m.cfg.Brokers, Topic: e.Topic, Producers: sp.Fragments[e.From].Tasks, Schema: e.Schema}
	g := q.spec.Graph
	sink := g.Stages[len(g.Stages)-1].Ops
	st := dataflow.StageSpec{Parallelism: 1, SourceName: "Changes of " + q.spec.Name, SourceKey: "source/changes",
		Source: func(int) (exec.Source, error) { return NewReader(cfg), nil }, Ops: sink[len(sink)-1:]}
	opts := q.spec.Options
	opts.Name = q.spec.Name + " (replica)"
	opts.State, opts.Restore, opts.CheckpointInterval = nil, false, 0
	return dataflow.StartJob(q.ctx, dataflow.GraphSpec{Stages: []dataflow.StageSpec{st}}, opts)
}

// Replica returns the job keeping a view's copy on this member (nil for
// a query that is not a view's).
func (q *Query) Replica() *dataflow.Job { return q.replica }

// Stop stops the member's tasks, leaving the consumer groups (the other
// members take the tasks over), and the replica.
func (q *Query) Stop() {
	q.m.unregister(q)
	for _, r := range q.frags {
		if r != nil {
			r.stop()
		}
	}
	if q.replica != nil {
		q.replica.Stop()
	}
	if q.cancel != nil {
		q.cancel()
	}
}
