package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// The tests' input: id BIGINT, name VARCHAR, ts TIMESTAMP(3), keyed by
// (id, name) — a key of two columns, either of which may be NULL.
var testInput = []types.T{types.BigIntT, types.VarcharT, types.TimestampT(3)}

// row is one input row.
type row struct {
	id     int64
	name   string
	null   bool // name is NULL
	ts     int64
	noTime bool // ts is NULL
}

// key identifies the row's key for the reference.
func (r row) key() string { return fmt.Sprintf("%d|%s|%v", r.id, r.name, r.null) }

// String renders the row as the collector does.
func (r row) String() string { return fmt.Sprintf("%s|%d|%v", r.key(), r.ts, r.noTime) }

// testConfig returns the configuration the tests use: event time when
// eventTime is set.
func testConfig(window int64, eventTime bool) Config {
	cfg := Config{Input: testInput, Keys: []int{0, 1}, WindowMs: window, FPR: 0.01, TimeCol: -1}
	if eventTime {
		cfg.TimeCol = 2
	}
	return cfg
}

// chunkOf builds a chunk of rows; the caller releases its batch.
func chunkOf(alloc memory.Allocator, rows []row) exec.Chunk {
	data := make([][]types.Datum, len(rows))
	for i, r := range rows {
		name, ts := types.StringDatum(r.name), types.IntDatum(r.ts)
		if r.null {
			name = types.NullDatum
		}
		if r.noTime {
			ts = types.NullDatum
		}
		data[i] = []types.Datum{types.IntDatum(r.id), name, ts}
	}
	return exec.Chunk{Batch: types.BuildRecord(alloc, []string{"id", "name", "ts"}, testInput, data)}
}

// rowsOf reads a chunk back into rows.
func rowsOf(c exec.Chunk) []row {
	var out []row
	for _, d := range types.Rows(c.Batch, testInput) {
		r := row{id: d[0].I, name: d[1].S, null: d[1].Null, ts: d[2].I, noTime: d[2].Null}
		out = append(out, r)
	}
	return out
}

// instance is an operator under test with its clock and what it kept.
type instance struct {
	op    *Operator
	env   *exec.Env
	clock *int64 // processing time, ms; shared by a test's instances
	kept  []row
}

// newInstance opens an operator of cfg as instance i of p.
func newInstance(t *testing.T, alloc memory.Allocator, cfg Config, clock *int64, i, p int) *instance {
	t.Helper()
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := exectest.InstanceEnv(alloc, i, p, func() time.Time { return time.UnixMilli(*clock) })
	exectest.Open(t, op, env)
	return &instance{op: op, env: env, clock: clock}
}

// feed processes rows and returns those kept.
func (in *instance) feed(t *testing.T, rows []row) []row {
	t.Helper()
	if len(rows) == 0 {
		return nil
	}
	c := chunkOf(in.env.Alloc, rows)
	defer c.Batch.Release()
	var kept []row
	err := in.op.Process(context.Background(), 0, c, exec.EmitterFunc(func(_ context.Context, out exec.Chunk) error {
		if out.Ops != nil {
			return fmt.Errorf("output has ops")
		}
		kept = append(kept, rowsOf(out)...)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	in.kept = append(in.kept, kept...)
	return kept
}

// watermark sends a watermark.
func (in *instance) watermark(t *testing.T, wm int64) {
	t.Helper()
	if err := in.op.OnControl(context.Background(), exec.Control{Kind: exec.Watermark, Watermark: wm}, nil); err != nil {
		t.Fatal(err)
	}
}

// reference is the exact de-duplication the operator must compute: every
// kept row's time by key, and a row is a duplicate if one of its key's is
// less than the window away.
type reference struct {
	window int64
	seen   map[string][]int64
}

// keep reports whether r is kept, and remembers it if so.
func (ref *reference) keep(r row) bool {
	if r.noTime {
		return true
	}
	for _, s := range ref.seen[r.key()] {
		if absDiff(r.ts, s) < ref.window {
			return false
		}
	}
	ref.seen[r.key()] = append(ref.seen[r.key()], r.ts)
	return true
}

// generator makes the random input: rows of new keys, and with
// probability dupRate a repeat of an earlier row's key, half of them
// within the window of it and half further away (a repeat of a key seen
// more than a window before).
type generator struct {
	r         *rand.Rand
	window    int64
	eventTime bool
	dupRate   float64
	now       int64 // processing time; event time advances with it
	wm        int64
	lateness  int64
	past      []row // rows generated, in order
	nextID    int64
	// Counts of the repeats injected.
	within, outside int
}

// batch returns a batch of n rows at the generator's time, and advances
// it by step ms.
func (g *generator) batch(n int, step int64) []row {
	rows := make([]row, 0, n)
	for range n {
		r := g.fresh()
		if len(g.past) > 0 && g.r.Float64() < g.dupRate {
			p := g.past[g.r.IntN(len(g.past))]
			if g.r.IntN(2) == 0 {
				// A recent row, within the window: search back from the end.
				p = g.past[len(g.past)-1-g.r.IntN(min(len(g.past), 50))]
				g.within++
			} else {
				p = g.past[g.r.IntN(max(len(g.past)/4, 1))]
				g.outside++
			}
			r.id, r.name, r.null = p.id, p.name, p.null
		}
		rows = append(rows, r)
		g.past = append(g.past, r)
	}
	g.now += step
	return rows
}

// fresh returns a row of a new key at the generator's time: in event
// time, up to the lateness behind it but never behind the watermark.
func (g *generator) fresh() row {
	g.nextID++
	r := row{id: g.nextID % 1_000_003, name: fmt.Sprintf("k%d", g.nextID), ts: g.now}
	if g.r.IntN(50) == 0 {
		r.null = true
		r.name = ""
	}
	if g.eventTime {
		r.ts = max(g.now-g.r.Int64N(g.lateness+1), g.wm)
		if g.r.IntN(200) == 0 {
			r.noTime, r.ts = true, 0
		}
	}
	return r
}

// sortedStrings renders rows sorted, for comparing sets of kept rows.
func sortedStrings(rows []row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.String()
	}
	slices.Sort(out)
	return out
}
