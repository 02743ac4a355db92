package sink

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
)

// optionsConfig returns the config FromOptions makes of opts under a new
// file root, for rows of names and types ts.
func optionsConfig(t testing.TB, opts map[string]string, names []string, ts []types.T) Config {
	t.Helper()
	cfg, err := FromOptions(opts, conntest.RootAt(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Names, cfg.Types = names, ts
	return cfg
}

// resolved returns the path a file sink of cfg writes.
func resolved(t testing.TB, cfg Config) string {
	t.Helper()
	path, err := cfg.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// allNames and allTypes are a row type with every SQL type a sink writes.
var (
	allNames = []string{"b", "ti", "i", "bi", "f", "d", "dec", "s", "dt", "ts0", "ts3", "iv"}
	allTypes = []types.T{types.BoolT, {Kind: types.TinyInt}, types.IntT, types.BigIntT,
		{Kind: types.Float}, types.DoubleT, types.DecimalT(10, 2), types.VarcharT, types.DateT,
		types.TimestampT(0), types.TimestampT(3), types.IntervalT}
)

// allRows are four rows of allTypes: ordinary values, NULLs, edge values
// (NaN, the empty string, dates and times before 1970) and values needing
// escapes (quotes, commas, line breaks, control characters, unicode).
func allRows(t testing.TB) [][]types.Datum {
	t.Helper()
	null := make([]types.Datum, len(allTypes))
	for j := range null {
		null[j] = types.NullDatum
	}
	return [][]types.Datum{
		{types.BoolDatum(true), types.IntDatum(-128), types.IntDatum(math.MaxInt32), types.IntDatum(math.MinInt64),
			types.FloatDatum(1.5), types.FloatDatum(math.Pi), dec(1234567890), types.StringDatum(`he said "hi", then left`),
			date(t, "2024-02-29"), ts(t, "2024-01-01 00:00:01"), ts(t, "2024-01-01 00:00:01.250"), types.IntDatum(10_000)},
		null,
		{types.BoolDatum(false), types.IntDatum(0), types.IntDatum(0), types.IntDatum(math.MaxInt64),
			types.FloatDatum(-0.25), types.FloatDatum(math.NaN()), dec(-5), types.StringDatum(""),
			date(t, "1969-12-31"), ts(t, "1900-01-01 00:00:00"), types.IntDatum(-1), types.IntDatum(1500)},
		{types.BoolDatum(true), types.IntDatum(127), types.IntDatum(-1), types.IntDatum(1),
			types.FloatDatum(1e-7), types.FloatDatum(math.Inf(1)), dec(0), types.StringDatum("naïve ☃ 日本\n\t\x01 back\\slash"),
			date(t, "1900-01-01"), types.IntDatum(0), ts(t, "9999-12-31 23:59:59.999"), types.IntDatum(-types.MsPerDay)},
	}
}

func dec(v int64) types.Datum { return types.DecimalDatum(decimal128.FromI64(v)) }

func date(t testing.TB, s string) types.Datum {
	t.Helper()
	d, err := types.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return types.IntDatum(int64(d))
}

func ts(t testing.TB, s string) types.Datum {
	t.Helper()
	ms, err := types.ParseTimestamp(s)
	if err != nil {
		t.Fatal(err)
	}
	return types.IntDatum(ms)
}

// newAlloc returns a checked allocator whose leaks fail the test.
func newAlloc(t testing.TB) *memory.CheckedAllocator {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { alloc.AssertSize(t, 0) })
	return alloc
}

// makeChunk builds a chunk of rows with ops (nil: all inserts), released
// when the test ends.
func makeChunk(t testing.TB, alloc memory.Allocator, names []string, ts []types.T, rows [][]types.Datum, ops []exec.Op) exec.Chunk {
	t.Helper()
	rec := types.BuildRecord(alloc, names, ts, rows)
	t.Cleanup(rec.Release)
	return exec.Chunk{Batch: rec, Ops: ops}
}

// mustNew returns the *Sink for cfg.
func mustNew(t testing.TB, cfg Config) *Sink {
	t.Helper()
	op, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return op.(*Sink)
}

// open opens s with a single-instance Env.
func open(t testing.TB, s *Sink) {
	t.Helper()
	if err := s.Open(context.Background(), exec.NewTestEnv(memory.DefaultAllocator)); err != nil {
		t.Fatalf("Open: %v", err)
	}
}

// process feeds c to s.
func process(t testing.TB, s *Sink, c exec.Chunk) {
	t.Helper()
	if err := s.Process(context.Background(), 0, c, nil); err != nil {
		t.Fatalf("Process: %v", err)
	}
}

// closeWrote closes s and checks that it wrote rows rows.
func closeWrote(t testing.TB, s *Sink, rows int64) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if s.Rows() != rows {
		t.Errorf("Rows() = %d, want %d", s.Rows(), rows)
	}
}

// control sends a control message of kind k to s.
func control(t testing.TB, s *Sink, k exec.ControlKind) {
	t.Helper()
	if err := s.OnControl(context.Background(), exec.Control{Kind: k}, nil); err != nil {
		t.Fatalf("OnControl(%v): %v", exec.Control{Kind: k}, err)
	}
}

// readFile returns the content of path.
func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lines joins ls, each followed by a line break.
func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}
