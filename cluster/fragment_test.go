package cluster

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
)

func anySchema(int) (*arrow.Schema, error) {
	return arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil), nil
}

func src(name string) dataflow.StageSpec {
	return dataflow.StageSpec{Parallelism: 2, SourceName: name, Source: func(int) (exec.Source, error) { return nil, nil }}
}

func op(name string) dataflow.OpSpec { return dataflow.OpSpec{Name: name} }

// TestSplitGraphJoin cuts the dataflow of a join of two sources followed
// by a gather into the view's sink: each source's fragment writes a hash
// edge, the join's fragment reads both and writes a single edge, and the
// sink's fragment reads it.
func TestSplitGraphJoin(t *testing.T) {
	g := dataflow.GraphSpec{Stages: []dataflow.StageSpec{
		src("bids"),
		src("auctions"),
		{Parallelism: 2, Inputs: []dataflow.InputSpec{
			{From: 0, Dist: dataflow.DistHash, Keys: []int{0}, NodeID: 5},
			{From: 1, Dist: dataflow.DistHash, Keys: []int{1}, Input: 1, NodeID: 6}}, Ops: []dataflow.OpSpec{op("join"), op("project")}},
		{Parallelism: 1, Inputs: []dataflow.InputSpec{{From: 2, Dist: dataflow.DistSingle, NodeID: 7}}, Ops: []dataflow.OpSpec{op("sink")}},
	}}
	sp, err := SplitGraph(g, anySchema)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Fragments) != 4 || len(sp.Edges) != 3 || sp.Sink != 3 {
		t.Fatalf("fragments %d, edges %d, sink %d", len(sp.Fragments), len(sp.Edges), sp.Sink)
	}
	for fi, want := range []struct{ source, out, outStage, readers, stages int }{
		{0, 0, 0, 0, 1}, {0, 1, 0, 0, 1}, {-1, 2, 2, 2, 3}, {-1, -1, -1, 1, 2},
	} {
		f := sp.Fragments[fi]
		if f.Source != want.source || f.Out != want.out || f.OutStage != want.outStage || len(f.Readers) != want.readers || len(f.Stages) != want.stages {
			t.Errorf("fragment %d: source %d out %d (stage %d) readers %v stages %d", fi, f.Source, f.Out, f.OutStage, f.Readers, len(f.Stages))
		}
		for _, st := range f.Stages {
			if st.Parallelism != 1 {
				t.Errorf("fragment %d: a stage of parallelism %d", fi, st.Parallelism)
			}
			for _, in := range st.Inputs {
				if in.Dist != dataflow.DistForward {
					t.Errorf("fragment %d: an input of distribution %v left uncut", fi, in.Dist)
				}
			}
		}
	}
	join := sp.Fragments[2].Stages[2]
	if join.Inputs[0].From != 0 || join.Inputs[1].From != 1 || join.Inputs[1].Input != 1 {
		t.Errorf("the join's inputs: %+v", join.Inputs)
	}
	if e := sp.Edges[1]; e.From != 1 || e.To != 2 || e.Dist != dataflow.DistHash || e.Keys[0] != 1 {
		t.Errorf("the auctions edge: %+v", e)
	}
	if e := sp.Edges[2]; e.From != 2 || e.To != 3 || e.Dist != dataflow.DistSingle {
		t.Errorf("the gather edge: %+v", e)
	}
}

// TestSplitGraphRefusals: a fragment with two sources and no exchange
// between them, and a stage feeding two exchanges, are refused.
func TestSplitGraphRefusals(t *testing.T) {
	union := dataflow.GraphSpec{Stages: []dataflow.StageSpec{
		src("a"), src("b"),
		{Parallelism: 2, Inputs: []dataflow.InputSpec{{From: 0, Dist: dataflow.DistForward}, {From: 1, Dist: dataflow.DistForward, Input: 1}},
			Ops: []dataflow.OpSpec{op("union")}},
		{Parallelism: 1, Inputs: []dataflow.InputSpec{{From: 2, Dist: dataflow.DistSingle}}, Ops: []dataflow.OpSpec{op("sink")}},
	}}
	if _, err := SplitGraph(union, anySchema); err == nil || !strings.Contains(err.Error(), "not supported yet in cluster mode") {
		t.Errorf("two sources in a fragment: %v", err)
	}
	fan := dataflow.GraphSpec{Stages: []dataflow.StageSpec{
		src("a"),
		{Parallelism: 2, Inputs: []dataflow.InputSpec{{From: 0, Dist: dataflow.DistHash}}, Ops: []dataflow.OpSpec{op("x")}},
		{Parallelism: 1, Inputs: []dataflow.InputSpec{{From: 0, Dist: dataflow.DistSingle}, {From: 1, Dist: dataflow.DistSingle, Input: 1}}, Ops: []dataflow.OpSpec{op("sink")}},
	}}
	if _, err := SplitGraph(fan, anySchema); err == nil || !strings.Contains(err.Error(), "feeds 2 exchanges") {
		t.Errorf("a stage feeding two exchanges: %v", err)
	}
}
