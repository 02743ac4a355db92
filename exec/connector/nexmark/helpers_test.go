package nexmark

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// testConfig returns a bounded config of table with Beam's base time.
func testConfig(table string, events int64) Config {
	return Config{Table: table, Events: events, BaseTime: DefaultBaseTime}
}

// newEnv returns an env for split instance of p on a checked allocator.
func newEnv(instance, p int) (*exec.Env, *memory.CheckedAllocator) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	env := exec.NewTestEnv(alloc)
	env.Instance, env.Parallelism = instance, p
	return env, alloc
}

// openSplit returns the source of split instance of p of cfg, opened on
// a checked allocator; when t ends it is closed and its leaks fail t.
func openSplit(t testing.TB, cfg Config, instance, p int) *Source {
	t.Helper()
	src, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env, alloc := newEnv(instance, p)
	t.Cleanup(func() { alloc.AssertSize(t, 0) })
	if err := src.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// readSplit generates split instance of p of a bounded cfg to its end and
// returns its rows. It checks that every chunk holds at most the batch size
// and that no Arrow memory leaks.
func readSplit(t testing.TB, cfg Config, instance, p int) [][]types.Datum {
	t.Helper()
	src := openSplit(t, cfg, instance, p)
	ctx := context.Background()
	ts := schemaTypes(t, src)
	most := cfg.BatchSize
	if most == 0 {
		most = DefaultBatchSize
	}
	var rows [][]types.Datum
	err := exectest.Drain(ctx, src, func(c exec.Chunk) error {
		if n := c.NumRows(); n == 0 || n > most {
			return fmt.Errorf("chunk of %d rows (batch size %d)", n, most)
		}
		if !c.Batch.Schema().Equal(src.Schema()) {
			return fmt.Errorf("chunk schema %s, want %s", c.Batch.Schema(), src.Schema())
		}
		rows = append(rows, types.Rows(c.Batch, ts)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// readAll generates all of a bounded cfg with one split.
func readAll(t testing.TB, cfg Config) [][]types.Datum {
	t.Helper()
	return readSplit(t, cfg, 0, 1)
}

// schemaTypes returns the SQL types of a source's columns.
func schemaTypes(t testing.TB, src *Source) []types.T {
	t.Helper()
	ts := make([]types.T, len(src.Schema().Fields()))
	for i, f := range src.Schema().Fields() {
		ty, err := types.FromField(f)
		if err != nil {
			t.Fatal(err)
		}
		ts[i] = ty
	}
	return ts
}

// splitEvents lists the event numbers split instance of p generates for
// table k among the first events, in order: the reference the cursor must
// match.
func splitEvents(k kind, instance, p int, events uint64) []uint64 {
	return blockEvents(k, instance, p, events, SplitBlock)
}

// blockEvents is splitEvents with blocks of block events.
func blockEvents(k kind, instance, p int, events, block uint64) []uint64 {
	var out []uint64
	for n := uint64(0); n < events; n++ {
		if (n/block)%uint64(p) == uint64(instance) && kindOf(n) == k {
			out = append(out, n)
		}
	}
	return out
}

// colIndex returns the ordinal of the named column among all the columns
// of table k.
func colIndex(t testing.TB, k kind, name string) int {
	t.Helper()
	for i, f := range fieldsOf(k) {
		if f.name == name {
			return i
		}
	}
	t.Fatalf("no column %s", name)
	return -1
}

// ints returns column j of rows as integers.
func ints(rows [][]types.Datum, j int) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r[j].I
	}
	return out
}

// strs returns column j of rows as strings.
func strs(rows [][]types.Datum, j int) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[j].S
	}
	return out
}

// cols builds declared columns from names, typed as the table types them.
func cols(t testing.TB, table string, names ...string) []catalog.Column {
	t.Helper()
	all := Columns(table)
	out := make([]catalog.Column, len(names))
	for i, name := range names {
		found := false
		for _, c := range all {
			if c.Name == name {
				out[i], found = c, true
			}
		}
		if !found {
			t.Fatalf("table %s has no column %s", table, name)
		}
	}
	return out
}

// within fails the test when got is not within tol of want.
func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if got < want-tol || got > want+tol {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	}
}
