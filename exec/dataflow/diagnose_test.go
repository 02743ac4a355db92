package dataflow

import (
	"reflect"
	"testing"
	"time"
)

// A three-stage job for the diagnosis rules: a source stage (the source
// and a chained operator), a hash-partitioned stage of two instances
// running two operators, and the sink stage.
var diagShape = Shape{
	Ops: []OpPlace{{0, -1}, {0, 0}, {1, 0}, {1, 1}, {2, 0}},
	Stages: []StageShape{{Parallelism: 1, Consumer: 1}, {Parallelism: 2, Consumer: 2, Hashed: true},
		{Parallelism: 1, Consumer: -1}},
}

// diagInterval returns an interval of diagShape over one second in
// which each operator's instances were busy (and backpressured) as given,
// in milliseconds: ms[k][i] = {busy, backpressure}, each instance taking
// rows[k][i] rows (1000 per instance when rows is nil).
func diagInterval(ms [][][2]int64, rows [][]int64) Interval {
	iv := Interval{Length: time.Second, Shape: diagShape}
	for k, insts := range ms {
		var st []OpStats
		for i, b := range insts {
			n := int64(1000)
			if rows != nil {
				n = rows[k][i]
			}
			st = append(st, inst(n, b[1], time.Duration(b[0])*time.Millisecond))
		}
		iv.Ops = append(iv.Ops, opInterval(time.Second, st...))
	}
	return iv
}

// TestBottleneckOnBackpressurePath: the source stage is backpressured, so
// the bottleneck is the busiest operator of the first stage downstream
// that is not, even though the sink is about as busy; its capacity is its
// rows over its busiest instance's busy time.
func TestBottleneckOnBackpressurePath(t *testing.T) {
	iv := diagInterval([][][2]int64{
		{{50, 800}},          // source
		{{100, 800}},         // chained
		{{900, 0}, {850, 0}}, // the hashed stage's first operator
		{{100, 0}, {100, 0}}, // its second
		{{950, 0}},           // sink: busier, but not held back by anyone
	}, nil)
	d := Diagnose(iv)
	if d.Bottleneck != 2 {
		t.Fatalf("bottleneck %d, want 2 (diagnosis %+v)", d.Bottleneck, d)
	}
	if want := []bool{true, false, false}; !reflect.DeepEqual(d.Backpressured, want) {
		t.Errorf("backpressured stages %v, want %v", d.Backpressured, want)
	}
	if !near(d.Capacity, 2000/0.9) {
		t.Errorf("capacity %v, want %v", d.Capacity, 2000/0.9)
	}
}

// TestBottleneckWithoutBackpressure: with no stage held back, the most
// utilized operator is the bottleneck — chained behind the source here.
func TestBottleneckWithoutBackpressure(t *testing.T) {
	iv := diagInterval([][][2]int64{{{50, 0}}, {{700, 0}}, {{300, 0}, {200, 0}}, {{100, 0}, {100, 0}}, {{600, 0}}}, nil)
	if d := Diagnose(iv); d.Bottleneck != 1 {
		t.Errorf("bottleneck %d, want 1", d.Bottleneck)
	}
}

// TestBottleneckPathNotBusy: a stage on the backpressure path that is
// barely busy waits for something else; the job's busiest operator is
// the bottleneck then.
func TestBottleneckPathNotBusy(t *testing.T) {
	iv := diagInterval([][][2]int64{{{50, 900}}, {{20, 900}}, {{30, 0}, {30, 0}}, {{20, 0}, {20, 0}}, {{800, 0}}}, nil)
	if d := Diagnose(iv); d.Bottleneck != 4 {
		t.Errorf("bottleneck %d, want 4", d.Bottleneck)
	}
	// A backpressured stage whose consumers are all backpressured up to
	// the sink stage, which is never: the sink stage holds them back.
	iv = diagInterval([][][2]int64{{{50, 900}}, {{20, 900}}, {{30, 500}, {30, 500}}, {{20, 500}, {20, 500}}, {{800, 0}}}, nil)
	if d := Diagnose(iv); d.Bottleneck != 4 {
		t.Errorf("bottleneck %d, want 4", d.Bottleneck)
	}
}

// TestNoBottleneckWhenIdle: a job busy less than 1% of the interval
// anywhere has no bottleneck, and no capacity.
func TestNoBottleneckWhenIdle(t *testing.T) {
	iv := diagInterval([][][2]int64{{{1, 0}}, {{2, 0}}, {{3, 0}, {1, 0}}, {{1, 0}, {1, 0}}, {{9, 0}}}, nil)
	if d := Diagnose(iv); d.Bottleneck != -1 || d.Capacity != 0 {
		t.Errorf("bottleneck %d with capacity %v, want none", d.Bottleneck, d.Capacity)
	}
	if d := Diagnose(Interval{}); d.Bottleneck != -1 {
		t.Errorf("an empty interval has bottleneck %d", d.Bottleneck)
	}
}

// TestStragglers: an instance busy 1.5 times its operator's median
// instance or more is a straggler, if busy 5% of the interval; an
// operator of one instance has none.
func TestStragglers(t *testing.T) {
	iv := diagInterval([][][2]int64{
		{{900, 0}},
		{{10, 0}},
		{{300, 0}, {100, 0}}, // median 200: 300 is 1.5 times it
		{{40, 0}, {10, 0}},   // 40 is 1.6 times the median 25, but busy 4% of the interval
		{{10, 0}},
	}, nil)
	d := Diagnose(iv)
	want := []Straggler{{Op: 2, Instance: 0, Busy: 300 * time.Millisecond, Median: 200 * time.Millisecond}}
	if !reflect.DeepEqual(d.Stragglers, want) {
		t.Errorf("stragglers %+v, want %+v", d.Stragglers, want)
	}
	// Three instances: the median is the middle one.
	o := opInterval(time.Second, inst(0, 0, 100*time.Millisecond), inst(0, 0, 140*time.Millisecond), inst(0, 0, 150*time.Millisecond))
	if s := stragglers(0, o); len(s) != 0 { // 150 < 1.5 × 140
		t.Errorf("stragglers %+v, want none", s)
	}
	o = opInterval(time.Second, inst(0, 0, 100*time.Millisecond), inst(0, 0, 100*time.Millisecond), inst(0, 0, 400*time.Millisecond))
	if s := stragglers(0, o); len(s) != 1 || s[0].Instance != 2 || s[0].Median != 100*time.Millisecond {
		t.Errorf("stragglers %+v, want instance 2 against the median 100ms", s)
	}
}

// TestKeySkew: the first operator behind a hash exchange whose instance
// receives 1.5 times the median instance's rows is skewed there, with
// its share of the rows; not the operators chained after it, not with
// fewer than minSkewRows rows.
func TestKeySkew(t *testing.T) {
	busy := [][][2]int64{{{100, 0}}, {{100, 0}}, {{100, 0}, {100, 0}}, {{100, 0}, {100, 0}}, {{100, 0}}}
	iv := diagInterval(busy, [][]int64{{4000}, {4000}, {3000, 1000}, {3000, 1000}, {4000}})
	d := Diagnose(iv)
	want := []Skew{{Op: 2, Instance: 0, Rows: 3000, Median: 2000, Share: 0.75}}
	if !reflect.DeepEqual(d.Skews, want) {
		t.Errorf("skews %+v, want %+v", d.Skews, want)
	}
	iv = diagInterval(busy, [][]int64{{4000}, {4000}, {2200, 1800}, {2200, 1800}, {4000}})
	if d := Diagnose(iv); len(d.Skews) != 0 {
		t.Errorf("skews %+v of an even spread", d.Skews)
	}
	iv = diagInterval(busy, [][]int64{{400}, {400}, {300, 100}, {300, 100}, {400}})
	if d := Diagnose(iv); len(d.Skews) != 0 {
		t.Errorf("skews %+v of 400 rows", d.Skews)
	}
	// Of four instances, the median is the mean of the middle two; an
	// instance receiving nothing is not skewed.
	o := opInterval(time.Second, inst(5000, 0, 0), inst(1000, 0, 0), inst(1000, 0, 0), inst(0, 0, 0))
	if s := skews(3, o); len(s) != 1 || s[0].Instance != 0 || s[0].Median != 1000 || !near(s[0].Share, 5000.0/7000) {
		t.Errorf("skews %+v, want instance 0 with 5/7 of the rows", s)
	}
}

// TestMedian: the middle value, or the mean of the middle two.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
