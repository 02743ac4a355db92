package agg

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

func TestHashAggNegativeCount(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "count(*)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n-D 1 10", Err: aggstate.ErrNegativeCount},
	})
	cfg = testConfig(t, "bigint bigint", []int{0}, "max(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 10\n+I 1 11", Want: `+I 1 11`},
		{In: "bigint bigint\n-D 1 20", Err: aggstate.ErrNegativeCount},
	})
	cfg = testConfig(t, "bigint bigint", []int{0}, "count(distinct 1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 10\n+I 1 11", Want: `+I 1 2`},
		{In: "bigint bigint\n-D 1 12", Err: aggstate.ErrNegativeCount},
	})
}

func TestHashAggSumOverflow(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "sum(1)")
	runSteps(t, cfg, []exectest.Step{
		// Overflowing along the way is fine when the result fits.
		{In: "bigint bigint\n+I 1 9223372036854775807\n+I 1 1\n+I 1 1\n-D 1 1\n-D 1 1", Want: `+I 1 9223372036854775807`},
		{In: "bigint bigint\n+I 1 1", Err: accum.ErrOverflow},
	})
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 -9223372036854775808\n-D 1 -9223372036854775808\n+I 1 -9223372036854775808\n+I 1 -1\n-D 1 -1",
			Want: `+I 1 -9223372036854775808`},
		{In: "bigint bigint\n+I 1 -1", Err: accum.ErrOverflow},
	})
	cfg = testConfig(t, "bigint bigint", []int{0}, "avg(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 9223372036854775807\n+I 1 9223372036854775807", Want: `+I 1 9223372036854776000`},
	})
}

func TestHashConfigErrors(t *testing.T) {
	alloc := exectest.Alloc(t)
	for _, tc := range []struct {
		cfg  HashConfig
		want error
	}{
		{testConfig(t, "boolean", nil, "sum(0)"), accum.ErrNotSupported},
		{testConfig(t, "varchar", nil, "avg(0)"), accum.ErrNotSupported},
	} {
		h := NewHashAgg(tc.cfg)
		if err := h.Open(context.Background(), exec.NewTestEnv(alloc)); !errors.Is(err, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.cfg.Names, err, tc.want)
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	}
	bad := testConfig(t, "bigint", nil, "count(*)")
	bad.Names = nil
	if err := NewHashAgg(bad).Open(context.Background(), exec.NewTestEnv(alloc)); err == nil {
		t.Error("Open accepted a configuration without names")
	}
	for name, mutate := range map[string]func(*HashConfig){
		"unknown function":      func(c *HashConfig) { c.Aggs[0].Func = 0 },
		"argument out of range": func(c *HashConfig) { c.Aggs[0].Arg = 5 },
		"key out of range":      func(c *HashConfig) { c.GroupKeys = []int{7} },
		"MIN of a DATE as a TIMESTAMP": func(c *HashConfig) {
			c.Aggs[0] = accum.Spec{Func: plan.AggMin, Arg: 1, ArgType: types.DateT, Type: types.TimestampT(3)}
		},
		"SUM of DECIMAL(10,2) at another scale": func(c *HashConfig) {
			c.Aggs[0] = accum.Spec{Func: plan.AggSum, Arg: 2, ArgType: types.DecimalT(10, 2), Type: types.DecimalT(38, 3)}
		},
	} {
		cfg := testConfig(t, "bigint date decimal(10,2)", []int{0}, "sum(0)")
		mutate(&cfg)
		h := NewHashAgg(cfg)
		if err := h.Open(context.Background(), exec.NewTestEnv(alloc)); err == nil {
			t.Errorf("%s: Open succeeded", name)
		}
		h.Close()
	}
}

func TestHashAggMetricsAndSlotReuse(t *testing.T) {
	alloc := exectest.Alloc(t)
	cfg := testConfig(t, "varchar bigint", []int{0}, "count(*)", "max(1)")
	h := NewHashAgg(cfg)
	env := exec.NewTestEnv(alloc)
	ctx := context.Background()
	if err := h.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out := newCollector(t, cfg)
	run := func(text string) {
		ch := exectest.Chunk(t, alloc, text)
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
	if got := out.Take(); !strings.HasSuffix(got, "+I d 1 1\n+I e 1 2\n+I f 1 3") {
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
	alloc := exectest.Alloc(t)
	cfg := testConfig(t, "varchar bigint", []int{0}, "sum(1)")
	h := NewHashAgg(cfg)
	ctx := context.Background()
	out := newCollector(t, cfg)
	if err := h.Process(ctx, 0, exec.Chunk{}, out); err == nil {
		t.Fatal("Process before Open succeeded")
	}
	if err := h.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, tc := range []struct {
		text string
		ops  []exec.Op
	}{
		{text: "bigint bigint\n+I 1 2"},                    // wrong key type
		{text: "varchar varchar\n+I a b"},                  // wrong argument type
		{text: "varchar\n+I a"},                            // missing column
		{text: "varchar bigint\n+I a 1", ops: []exec.Op{}}, // ops do not match rows
	} {
		ch := exectest.Chunk(t, alloc, tc.text)
		if tc.ops != nil {
			ch.Ops = tc.ops
		}
		if err := h.Process(ctx, 0, ch, out); err == nil {
			t.Errorf("%q: no error", tc.text)
		}
		ch.Batch.Release()
	}
	if err := h.Process(ctx, 1, exec.Chunk{}, out); err == nil {
		t.Error("input 1 accepted")
	}
}
