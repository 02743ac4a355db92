package exec

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

func TestHashAggNegativeCount(t *testing.T) {
	cfg := aggConfig(t, "bigint bigint", []int{0}, "count(*)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n-D 1 10", err: aggstate.ErrNegativeCount},
	})
	cfg = aggConfig(t, "bigint bigint", []int{0}, "max(1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n+I 1 10\n+I 1 11", want: `+I 1 11`},
		{in: "bigint bigint\n-D 1 20", err: aggstate.ErrNegativeCount},
	})
	cfg = aggConfig(t, "bigint bigint", []int{0}, "count(distinct 1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n+I 1 10\n+I 1 11", want: `+I 1 2`},
		{in: "bigint bigint\n-D 1 12", err: aggstate.ErrNegativeCount},
	})
}

func TestHashAggSumOverflow(t *testing.T) {
	cfg := aggConfig(t, "bigint bigint", []int{0}, "sum(1)")
	aggRunSteps(t, cfg, []aggStep{
		// Overflowing along the way is fine when the result fits.
		{in: "bigint bigint\n+I 1 9223372036854775807\n+I 1 1\n+I 1 1\n-D 1 1\n-D 1 1", want: `+I 1 9223372036854775807`},
		{in: "bigint bigint\n+I 1 1", err: accum.ErrOverflow},
	})
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n+I 1 -9223372036854775808\n-D 1 -9223372036854775808\n+I 1 -9223372036854775808\n+I 1 -1\n-D 1 -1",
			want: `+I 1 -9223372036854775808`},
		{in: "bigint bigint\n+I 1 -1", err: accum.ErrOverflow},
	})
	cfg = aggConfig(t, "bigint bigint", []int{0}, "avg(1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n+I 1 9223372036854775807\n+I 1 9223372036854775807", want: `+I 1 9223372036854776000`},
	})
}

func TestHashAggConfigErrors(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	for _, tc := range []struct {
		cfg  HashAggConfig
		want error
	}{
		{aggConfig(t, "boolean", nil, "sum(0)"), accum.ErrNotSupported},
		{aggConfig(t, "varchar", nil, "avg(0)"), accum.ErrNotSupported},
	} {
		h := NewHashAgg(tc.cfg)
		if err := h.Open(context.Background(), NewTestEnv(alloc)); !errors.Is(err, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.cfg.Names, err, tc.want)
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	}
	bad := aggConfig(t, "bigint", nil, "count(*)")
	bad.Names = nil
	if err := NewHashAgg(bad).Open(context.Background(), NewTestEnv(alloc)); err == nil {
		t.Error("Open accepted a configuration without names")
	}
	for name, mutate := range map[string]func(*HashAggConfig){
		"unknown function":      func(c *HashAggConfig) { c.Aggs[0].Func = 0 },
		"argument out of range": func(c *HashAggConfig) { c.Aggs[0].Arg = 5 },
		"key out of range":      func(c *HashAggConfig) { c.GroupKeys = []int{7} },
		"MIN of a DATE as a TIMESTAMP": func(c *HashAggConfig) {
			c.Aggs[0] = accum.Spec{Func: plan.AggMin, Arg: 1, ArgType: types.DateT, Type: types.TimestampT(3)}
		},
		"SUM of DECIMAL(10,2) at another scale": func(c *HashAggConfig) {
			c.Aggs[0] = accum.Spec{Func: plan.AggSum, Arg: 2, ArgType: types.DecimalT(10, 2), Type: types.DecimalT(38, 3)}
		},
	} {
		cfg := aggConfig(t, "bigint date decimal(10,2)", []int{0}, "sum(0)")
		mutate(&cfg)
		h := NewHashAgg(cfg)
		if err := h.Open(context.Background(), NewTestEnv(alloc)); err == nil {
			t.Errorf("%s: Open succeeded", name)
		}
		h.Close()
	}
}

func TestHashAggMetricsAndSlotReuse(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	cfg := aggConfig(t, "varchar bigint", []int{0}, "count(*)", "max(1)")
	h := NewHashAgg(cfg)
	env := NewTestEnv(alloc)
	ctx := context.Background()
	if err := h.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out := newAggCollector(t, 1)
	run := func(text string) {
		ch := aggChunk(t, alloc, text)
		defer ch.Batch.Release()
		if err := h.Process(ctx, 0, ch, out); err != nil {
			t.Fatal(err)
		}
	}
	run("varchar bigint\n+I a 1\n+I b 2\n+I c 3")
	m := env.Metrics
	if m.StateKeys.Load() != 3 || m.StateBytes.Load() <= 0 {
		t.Fatalf("state gauges after inserts: %d keys, %d bytes", m.StateKeys.Load(), m.StateBytes.Load())
	}
	if m.RowsIn.Load() != 0 || m.BatchesOut.Load() != 0 {
		t.Fatal("the operator counted rows or batches, which the runtime counts")
	}
	full := m.StateBytes.Load()
	run("varchar bigint\n-D a 1\n-D b 2\n-D c 3")
	if m.StateKeys.Load() != 0 || m.StateBytes.Load() >= full {
		t.Fatalf("after deletes: %d keys, %d bytes (was %d)", m.StateKeys.Load(), m.StateBytes.Load(), full)
	}
	run("varchar bigint\n+I d 1\n+I e 2\n+I f 3")
	if got := h.keys.high(); got != 3 {
		t.Fatalf("slots in use: %d, want 3 (freed slots reused)", got)
	}
	if got := out.take(); !strings.HasSuffix(got, "+I d 1 1\n+I e 1 2\n+I f 1 3") {
		t.Fatalf("output:\n%s", got)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestHashAggBadChunks(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	cfg := aggConfig(t, "varchar bigint", []int{0}, "sum(1)")
	h := NewHashAgg(cfg)
	ctx := context.Background()
	out := newAggCollector(t, 1)
	if err := h.Process(ctx, 0, Chunk{}, out); err == nil {
		t.Fatal("Process before Open succeeded")
	}
	if err := h.Open(ctx, NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, tc := range []struct {
		text string
		ops  []Op
	}{
		{text: "bigint bigint\n+I 1 2"},               // wrong key type
		{text: "varchar varchar\n+I a b"},             // wrong argument type
		{text: "varchar\n+I a"},                       // missing column
		{text: "varchar bigint\n+I a 1", ops: []Op{}}, // ops do not match rows
	} {
		ch := aggChunk(t, alloc, tc.text)
		if tc.ops != nil {
			ch.Ops = tc.ops
		}
		if err := h.Process(ctx, 0, ch, out); err == nil {
			t.Errorf("%q: no error", tc.text)
		}
		ch.Batch.Release()
	}
	if err := h.Process(ctx, 1, Chunk{}, out); err == nil {
		t.Error("input 1 accepted")
	}
}
