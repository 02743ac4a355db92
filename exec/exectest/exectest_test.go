package exectest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

func TestChunkRoundTrip(t *testing.T) {
	alloc := Alloc(t)
	ch := Chunk(t, alloc, `
		bigint varchar decimal(10,2) timestamp(3) double boolean
		+I 1 a 1.50 1000 2.5 true
		-D NULL '' NULL 2024-01-01T00:00:01 -0.5 false`)
	defer ch.Batch.Release()
	if ch.NumRows() != 2 || ch.Op(1) != exec.Delete {
		t.Fatalf("rows %d ops %v", ch.NumRows(), ch.Ops)
	}
	ts := SchemaTypes(t, ch.Batch.Schema())
	rows := types.Rows(ch.Batch, ts)
	if got := FormatRow(rows[0], ts, Millis); got != "1 a 1.50 1000 2.5 true" {
		t.Errorf("row 0 = %q", got)
	}
	if got := FormatRow(rows[1], ts, Text); got != "NULL '' NULL 2024-01-01 00:00:01.000 -0.5 false" {
		t.Errorf("row 1 = %q", got)
	}
	ins := Chunk(t, alloc, "bigint\n+I 1\n+I 2")
	defer ins.Batch.Release()
	if ins.Ops != nil {
		t.Errorf("a chunk of inserts has ops %v", ins.Ops)
	}
}

// passthrough emits its input; it fails on a chunk of 3 rows.
type passthrough struct{}

var errThree = errors.New("three rows")

func (passthrough) Open(context.Context, *exec.Env) error { return nil }
func (passthrough) Process(ctx context.Context, _ int, c exec.Chunk, out exec.Emitter) error {
	if c.NumRows() == 3 {
		return errThree
	}
	return out.Emit(ctx, c)
}
func (passthrough) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (passthrough) Close() error                                                { return nil }

func TestRunnerComparesStepsAndTheOracle(t *testing.T) {
	alloc := Alloc(t)
	in := NewIntegral([]types.T{types.BigIntT})
	r := &Runner{Op: passthrough{}, Env: exec.NewTestEnv(alloc), Out: NewCollector(t, CollectorOptions{}),
		Inputs: []*Integral{in},
		Oracle: func(ins []*Integral) []string {
			var out []string
			for _, row := range ins[0].Rows() {
				out = append(out, FormatRow(row, ins[0].Types, Text))
			}
			slices.Sort(out)
			return out
		}}
	r.Run(t, []Step{
		{In: "bigint\n+I 1\n+I 2", Want: "+I 1\n+I 2"},
		{Ctl: Watermark(5)},
		{In: "bigint\n-D 1", Want: "-D 1"},
		{In: "bigint\n+I 1\n+I 1\n+I 1", Err: errThree},
	})
	if got := strings.Join(r.Out.Rows(), ","); got != "2" {
		t.Errorf("integral %q", got)
	}
}

func TestRunnerAnyOutAndExactRows(t *testing.T) {
	alloc := Alloc(t)
	in := NewIntegral([]types.T{types.DoubleT})
	oracle := func(ins []*Integral) []string {
		var out []string
		for _, row := range ins[0].Rows() {
			out = append(out, FormatRow(row, ins[0].Types, Text))
		}
		slices.Sort(out)
		return out
	}
	r := &Runner{Op: passthrough{}, Env: exec.NewTestEnv(alloc),
		Out: NewCollector(t, CollectorOptions{Exact: true}), Inputs: []*Integral{in}, Oracle: oracle}
	// An AnyOut step is not compared with its Want; the oracle still runs.
	r.Run(t, []Step{{In: "double\n+I 0.30000000000000004", Want: "+I 7", AnyOut: true}})
	if got := strings.Join(r.Out.Rows(), ","); got != "0.30000000000000004" {
		t.Errorf("exact integral %q", got)
	}
	rounded := NewCollector(t, CollectorOptions{})
	ch := Chunk(t, alloc, "double\n+I 0.30000000000000004")
	defer ch.Batch.Release()
	if err := rounded.Emit(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rounded.Rows(), ","); got != "0.3" {
		t.Errorf("rounded integral %q", got)
	}
}

// TestCollectorIntegratesByValue checks that the collector's integral
// compares doubles as SQL does: -0 retracts +0, and NaN retracts NaN.
func TestCollectorIntegratesByValue(t *testing.T) {
	alloc := Alloc(t)
	out := NewCollector(t, CollectorOptions{})
	for _, text := range []string{"double\n+I 0\n+I NaN\n+I 1.5", "double\n-D -0\n-D NaN"} {
		ch := Chunk(t, alloc, text)
		defer ch.Batch.Release()
		if err := out.Emit(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(out.Rows(), ","); got != "1.5" {
		t.Errorf("integral %q, want 1.5", got)
	}
	if got := out.Take(); got != "+I 0\n+I NaN\n+I 1.5\n-D -0\n-D NaN" {
		t.Errorf("changelog %q", got)
	}
}

func TestSourceScript(t *testing.T) {
	alloc := Alloc(t)
	src := NewSource(t, alloc, "bigint\n+I 1")
	ctx := context.Background()
	c, err := src.Next(ctx)
	if err != nil || c.NumRows() != 1 {
		t.Fatalf("first Next: %v %d", err, c.NumRows())
	}
	c.Batch.Release()
	if _, err := src.Next(ctx); !errors.Is(err, exec.ErrCaughtUp) {
		t.Fatalf("caught up: %v", err)
	}
	src.Add("bigint\n+I 2")
	src.Push(Chunk(t, alloc, "bigint\n+I 3"))
	if err := src.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ = src.Next(ctx)
	if got := c.NumRows(); got != 1 || c.Batch.Column(0).(*array.Int64).Value(0) != 2 {
		t.Fatalf("after Add: %d rows", got)
	}
	c.Batch.Release()
	src.End()
	if err := src.Close(); err != nil { // releases the unread pushed chunk
		t.Fatal(err)
	}
	if _, err := src.Next(ctx); err != io.EOF {
		t.Fatalf("after End: %v", err)
	}
}

// TestReplayAndCounter replays two batches (the second with ops) into a
// passing counter twice: each replay emits both batches, retained for the
// receiver, and the counter counts and passes on every row.
func TestReplayAndCounter(t *testing.T) {
	alloc := Alloc(t)
	a, b := Chunk(t, alloc, "bigint\n+I 1\n+I 2"), Chunk(t, alloc, "bigint\n-D 1")
	defer a.Batch.Release()
	defer b.Batch.Release()
	src := &Replay{Batches: []arrow.RecordBatch{a.Batch, b.Batch}, Ops: [][]exec.Op{nil, b.Ops}}
	counter := &Counter{Pass: true}
	out := NewCollector(t, CollectorOptions{})
	ctx := context.Background()
	for range 2 {
		if err := src.Open(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for {
			c, err := src.Next(ctx)
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if err := counter.Process(ctx, 0, c, out); err != nil {
				t.Fatal(err)
			}
			c.Batch.Release()
		}
	}
	if got := out.Take(); got != "+I 1\n+I 2\n-D 1\n+I 1\n+I 2\n-D 1" {
		t.Errorf("changelog %q", got)
	}
	if counter.Rows() != 6 {
		t.Errorf("counted %d rows, want 6", counter.Rows())
	}
	silent := &Counter{}
	if err := silent.Process(ctx, 0, a, exec.EmitterFunc(func(context.Context, exec.Chunk) error {
		return errors.New("a counter without Pass emitted")
	})); err != nil || silent.Rows() != 2 {
		t.Errorf("silent counter: %v, %d rows", err, silent.Rows())
	}
}

// TestDrain drains a scripted source that catches up before its end: Drain
// waits for the rest, hands every chunk over and stops at the end, or at
// the first error of each.
func TestDrain(t *testing.T) {
	alloc := Alloc(t)
	src := NewSource(t, alloc, "bigint\n+I 1\n+I 2")
	go func() {
		time.Sleep(10 * time.Millisecond)
		src.Add("bigint\n+I 3")
		src.End()
	}()
	rows := 0
	err := Drain(context.Background(), src, func(c exec.Chunk) error { rows += c.NumRows(); return nil })
	if err != nil || rows != 3 {
		t.Fatalf("drained %d rows, %v; want 3", rows, err)
	}
	stop := errors.New("stop")
	src = NewSource(t, alloc, "bigint\n+I 1", "bigint\n+I 2")
	src.End()
	calls := 0
	if err := Drain(context.Background(), src, func(exec.Chunk) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("Drain returned %v after %d calls, want stop after 1", err, calls)
	}
	src.Close()
}

// fatalTB records the failure of a Collector and ends the goroutine that
// emitted, as testing.T's Fatal does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// collectFailure emits chunks to a collector with opts and returns the
// message it failed with, or "".
func collectFailure(t *testing.T, opts CollectorOptions, chunks ...string) string {
	alloc := Alloc(t)
	tb := &fatalTB{TB: t}
	c := NewCollector(tb, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, text := range chunks {
			func() {
				ch := Chunk(t, alloc, text)
				defer ch.Batch.Release()
				c.Emit(context.Background(), ch)
			}()
		}
	}()
	<-done
	return tb.msg
}

func TestCollectorGlobal(t *testing.T) {
	opts := CollectorOptions{Global: true}
	if msg := collectFailure(t, opts, "bigint\n+I 1", "bigint\n-U 1\n+U 2"); msg != "" {
		t.Errorf("an insert then an update: %s", msg)
	}
	if msg := collectFailure(t, opts, "bigint\n+I 1", "bigint\n-U 1\n+U 2\n-U 2\n+U 3"); !strings.Contains(msg, "twice") {
		t.Errorf("two updates in one chunk: %q", msg)
	}
	if msg := collectFailure(t, opts, "bigint\n+I 1", "bigint\n+I 2"); !strings.Contains(msg, "after its first row") {
		t.Errorf("a second insert: %q", msg)
	}
}
