package sink

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
)

// partNames and partTypes are the row type of the partitioned tests: a
// value, and two partition columns (a string and an integer).
var (
	partNames = []string{"v", "Cat", "n"}
	partTypes = []types.T{types.BigIntT, types.VarcharT, types.BigIntT}
)

// partRow is a row of partTypes; a nil cat or n is NULL.
func partRow(v int64, cat *string, n *int64) []types.Datum {
	r := []types.Datum{types.IntDatum(v), types.NullDatum, types.NullDatum}
	if cat != nil {
		r[1] = types.StringDatum(*cat)
	}
	if n != nil {
		r[2] = types.IntDatum(*n)
	}
	return r
}

func sp(s string) *string { return &s }
func ip(i int64) *int64   { return &i }

// partConfig is a partitioned file sink of partTypes under a temporary
// directory, built from opts as a CREATE SINK's WITH would give them.
func partConfig(t *testing.T, opts map[string]string) Config {
	t.Helper()
	all := map[string]string{"connector": "file", "path": "out", "format": "csv"}
	for k, v := range opts {
		all[k] = v
	}
	cfg := optionsConfig(t, all, partNames, partTypes)
	cfg.AppendOnly = true
	return cfg
}

// tree returns every file under root with its content, by path relative
// to root (with forward slashes).
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = readFile(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkTree compares the files under root with want.
func checkTree(t *testing.T, root string, want map[string]string) {
	t.Helper()
	got := tree(t, root)
	var paths []string
	for p := range got {
		paths = append(paths, p)
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		g, gok := got[p]
		w, wok := want[p]
		switch {
		case !gok:
			t.Errorf("missing file %s, want\n%s", p, w)
		case !wok:
			t.Errorf("unexpected file %s holding\n%s", p, g)
		case g != w:
			t.Errorf("file %s holds\n%s\nwant\n%s", p, g, w)
		}
	}
}

// TestPartitionedLayout checks the directories (Hive-style, values
// escaped, NULL as __NULL__ and apart from the string '__NULL__' and from
// ”), that the partition columns stay in the rows, and that each file
// starts with the header.
func TestPartitionedLayout(t *testing.T) {
	alloc := newAlloc(t)
	cfg := partConfig(t, map[string]string{"partition_by": " cat ,N", "header": "true"})
	s := mustNew(t, cfg)
	open(t, s)
	process(t, s, makeChunk(t, alloc, partNames, partTypes, [][]types.Datum{
		partRow(1, sp("a"), ip(1)),
		partRow(2, sp("a"), ip(1)),
		partRow(3, sp("a"), ip(2)),
		partRow(4, nil, ip(1)),
		partRow(5, sp(NullPartition), ip(1)),
		partRow(6, sp(""), nil),
		partRow(7, sp("12:30/x=y %"), ip(-3)),
		partRow(8, sp("a"), ip(1)),
		partRow(9, sp("naïve ☃"), ip(0)),
	}, nil))
	process(t, s, makeChunk(t, alloc, partNames, partTypes, [][]types.Datum{
		partRow(10, sp("a"), ip(2)),
	}, nil))
	control(t, s, exec.Flush)
	const h = "v,Cat,n\n"
	want := map[string]string{
		"Cat=a/n=1/part-0.csv":                    h + lines("1,a,1", "2,a,1", "8,a,1"),
		"Cat=a/n=2/part-0.csv":                    h + lines("3,a,2", "10,a,2"),
		"Cat=__NULL__/n=1/part-0.csv":             h + lines("4,,1"),
		"Cat=%5F_NULL__/n=1/part-0.csv":           h + lines("5,__NULL__,1"),
		"Cat=/n=__NULL__/part-0.csv":              h + lines(`6,"",`),
		"Cat=12%3A30%2Fx%3Dy %25/n=-3/part-0.csv": h + lines("7,12:30/x=y %,-3"),
		"Cat=naïve ☃/n=0/part-0.csv":              h + lines("9,naïve ☃,0"),
	}
	checkTree(t, resolved(t, cfg), want)
	closeWrote(t, s, 10)
}

// TestPartitionedJSONUpdating checks JSON lines with ops, and the .jsonl
// extension.
func TestPartitionedJSONUpdating(t *testing.T) {
	alloc := newAlloc(t)
	cfg := partConfig(t, map[string]string{"partition_by": "n", "format": "json"})
	cfg.AppendOnly = false
	s := mustNew(t, cfg)
	open(t, s)
	process(t, s, makeChunk(t, alloc, partNames, partTypes, [][]types.Datum{
		partRow(1, sp("a"), ip(1)), partRow(1, sp("a"), ip(1)), partRow(2, sp("a"), ip(2)),
	}, []exec.Op{exec.Insert, exec.UpdateBefore, exec.UpdateAfter}))
	control(t, s, exec.EndOfInput)
	checkTree(t, resolved(t, cfg), map[string]string{
		"n=1/part-0.jsonl": lines(`{"op":"+I","v":1,"Cat":"a","n":1}`, `{"op":"-U","v":1,"Cat":"a","n":1}`),
		"n=2/part-0.jsonl": lines(`{"op":"+U","v":2,"Cat":"a","n":2}`),
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPartitionedOpenFilesBounded writes rows of five partitions,
// interleaved within and across chunks, with at most two files open: the
// least recently written file is closed and later reopened for appending,
// so every file holds its rows in order and its header once.
func TestPartitionedOpenFilesBounded(t *testing.T) {
	alloc := newAlloc(t)
	cfg := partConfig(t, map[string]string{"partition_by": "n", "max_open_files": "2", "header": "true"})
	s := mustNew(t, cfg)
	open(t, s)
	want := map[string]string{}
	v := int64(0)
	for chunk := 0; chunk < 6; chunk++ {
		var rows [][]types.Datum
		for k := 0; k < 10; k++ {
			n := int64((chunk + k*k) % 5)
			rows = append(rows, partRow(v, sp("c"), ip(n)))
			path := "n=" + types.Format(types.IntDatum(n), types.BigIntT) + "/part-0.csv"
			if want[path] == "" {
				want[path] = "v,Cat,n\n"
			}
			want[path] += types.Format(types.IntDatum(v), types.BigIntT) + ",c," + types.Format(types.IntDatum(n), types.BigIntT) + "\n"
			v++
		}
		process(t, s, makeChunk(t, alloc, partNames, partTypes, rows, nil))
		if s.parts.open > 2 {
			t.Fatalf("after chunk %d: %d files open, want at most 2", chunk, s.parts.open)
		}
	}
	control(t, s, exec.Barrier)
	if len(want) != 5 {
		t.Fatalf("the test writes %d partitions, want 5", len(want))
	}
	checkTree(t, resolved(t, cfg), want)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.parts.open != 0 || s.parts.head != nil || s.parts.tail != nil {
		t.Errorf("after Close: %d files open", s.parts.open)
	}
}

// TestPartitionedRerun checks that a second run (a restarted query)
// rewrites its files from the start: the partitions it writes again are
// truncated, those it does not are removed with their directories, and
// files it never wrote (another instance's, the user's) stay.
func TestPartitionedRerun(t *testing.T) {
	alloc := newAlloc(t)
	cfg := partConfig(t, map[string]string{"partition_by": "cat, n"})
	root := resolved(t, cfg)
	run := func(rows [][]types.Datum) {
		s := mustNew(t, cfg)
		open(t, s)
		process(t, s, makeChunk(t, alloc, partNames, partTypes, rows, nil))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	run([][]types.Datum{partRow(1, sp("a"), ip(1)), partRow(2, sp("b"), ip(1)), partRow(3, sp("b"), ip(2))})
	for path, text := range map[string]string{"Cat=b/n=1/part-1.csv": "other instance\n", "README": "mine\n", "Cat=b/notes.txt": "mine\n"} {
		if err := os.WriteFile(filepath.Join(root, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run([][]types.Datum{partRow(4, sp("a"), ip(1))})
	checkTree(t, root, map[string]string{
		"Cat=a/n=1/part-0.csv": lines("4,a,1"),
		"Cat=b/n=1/part-1.csv": "other instance\n",
		"Cat=b/notes.txt":      "mine\n",
		"README":               "mine\n",
	})
	if _, err := os.Stat(filepath.Join(root, "Cat=b", "n=2")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the emptied partition directory Cat=b/n=2 is still there (%v)", err)
	}
}

// TestPartitionedParallel checks that each instance of a partitioned sink
// writes files named after it, which a plain file sink refuses.
func TestPartitionedParallel(t *testing.T) {
	alloc := newAlloc(t)
	cfg := partConfig(t, map[string]string{"partition_by": "n"})
	for inst := 0; inst < 2; inst++ {
		s := mustNew(t, cfg)
		env := exec.NewTestEnv(memory.DefaultAllocator)
		env.Instance, env.Parallelism = inst, 2
		if err := s.Open(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		process(t, s, makeChunk(t, alloc, partNames, partTypes, [][]types.Datum{partRow(int64(inst), sp("a"), ip(7))}, nil))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	checkTree(t, resolved(t, cfg), map[string]string{
		"n=7/part-0.csv": lines("0,a,7"),
		"n=7/part-1.csv": lines("1,a,7"),
	})
}

// TestPartitionedWriteError checks that a partition that cannot be
// created fails the sink with the path in the message.
func TestPartitionedWriteError(t *testing.T) {
	alloc := newAlloc(t)
	cfg := partConfig(t, map[string]string{"partition_by": "cat"})
	s := mustNew(t, cfg)
	open(t, s)
	// A file where the partition's directory must go.
	if err := os.WriteFile(filepath.Join(resolved(t, cfg), "Cat=x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := s.Process(context.Background(), 0, makeChunk(t, alloc, partNames, partTypes, [][]types.Datum{partRow(1, sp("x"), nil)}, nil), nil)
	if err == nil || !strings.Contains(err.Error(), "Cat=x") {
		t.Fatalf("Process = %v, want an error naming Cat=x", err)
	}
	if err2 := s.OnControl(context.Background(), exec.Control{Kind: exec.Flush}, nil); err2 != err {
		t.Errorf("after a write error OnControl = %v, want the same error", err2)
	}
	s.Close()
}

func TestPartitionByOptions(t *testing.T) {
	for _, tt := range []struct {
		opts map[string]string
		want string // a substring of the error
	}{
		{map[string]string{"connector": "file", "path": "o", "format": "csv", "partition_by": ""}, "option partition_by: invalid value ''"},
		{map[string]string{"connector": "file", "path": "o", "format": "csv", "partition_by": "a,,b"}, "option partition_by: invalid value"},
		{map[string]string{"connector": "file", "path": "o", "format": "csv", "partition_by": "a, A"}, "option partition_by: column A is named twice"},
		{map[string]string{"connector": "file", "path": "o", "format": "csv", "partition_by": "a, " + strings.Repeat("x", 1<<20)},
			"option partition_by: a column name has at most 256 characters, found one of 1048576"},
		{map[string]string{"connector": "blackhole", "partition_by": "a"}, "blackhole sink: option partition_by: unknown option"},
		{map[string]string{"connector": "print", "partition_by": "a"}, "print sink: option partition_by: unknown option"},
		{map[string]string{"connector": "file", "path": "o", "format": "csv", "max_open_files": "3"}, "option max_open_files: applies only with partition_by"},
		{map[string]string{"connector": "file", "path": "o", "format": "csv", "partition_by": "a", "max_open_files": "0"}, "option max_open_files: invalid value '0'"},
		{map[string]string{"connector": "file", "path": "o", "partition_by": "a"}, "option format: is required"},
	} {
		_, err := FromOptions(tt.opts, conntest.RootAt(t, t.TempDir()))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromOptions(%v) = %v, want an error containing %q", tt.opts, err, tt.want)
		}
		var oe *OptionError
		if err != nil && !errors.As(err, &oe) {
			t.Errorf("FromOptions(%v): %T is not an *OptionError", tt.opts, err)
		}
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("FromOptions: an error of %d bytes", len(err.Error()))
		}
	}
	cfg := partConfig(t, map[string]string{"partition_by": "cat, nope"})
	_, err := New(cfg)
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "partition_by" || !strings.Contains(err.Error(), "unknown column nope") {
		t.Errorf("New with an unknown partition column = %v, want an *OptionError naming partition_by and nope", err)
	}
	cfg = partConfig(t, map[string]string{"partition_by": "CAT, n", "max_open_files": "5"})
	if !slices.Equal(cfg.PartitionBy, []string{"CAT", "n"}) || cfg.MaxOpenFiles != 5 {
		t.Errorf("PartitionBy = %q, MaxOpenFiles = %d", cfg.PartitionBy, cfg.MaxOpenFiles)
	}
	if _, err := New(cfg); err != nil {
		t.Errorf("New: %v (partition columns match without regard to case)", err)
	}
}

func TestEscapePartition(t *testing.T) {
	for in, want := range map[string]string{
		"2015-07-15":    "2015-07-15",
		"12:30":         "12%3A30",
		`a/b\c`:         "a%2Fb%5Cc",
		"x=1?#%'\"*":    "x%3D1%3F%23%25%27%22%2A",
		"[]^{}":         "%5B%5D%5E%7B}",
		"tab\there\x7f": "tab%09here%7F",
		"":              "",
		"__NULL__":      "%5F_NULL__",
		"_NULL_":        "_NULL_",
		"..":            "..",
		"日本 space":      "日本 space",
	} {
		if got := string(escapePartition(nil, in)); got != want {
			t.Errorf("escapePartition(%q) = %q, want %q", in, got, want)
		}
	}
}

// q10Names and q10Types are the row type of Nexmark's q10, whose sink is
// partitioned by dt and hm.
var (
	q10Names = []string{"auction", "bidder", "price", "date_time", "extra", "dt", "hm"}
	q10Types = []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.TimestampT(3), types.VarcharT, types.VarcharT, types.VarcharT}
)

// q10Chunk returns a chunk of 4096 q10 rows whose hm cycles through
// parts values (1: every row in one partition, as a time-ordered stream
// mostly has it).
func q10Chunk(t testing.TB, parts int) exec.Chunk {
	rows := make([][]types.Datum, 4096)
	for i := range rows {
		hm := fmt.Sprintf("00:%02d", i%parts)
		rows[i] = []types.Datum{types.IntDatum(int64(1000 + i%97)), types.IntDatum(int64(2000 + i%13)),
			types.IntDatum(int64(i * 7919)), types.IntDatum(1436918400000 + int64(i)),
			types.StringDatum(strings.Repeat("x", 60+i%20)), types.StringDatum("2015-07-15"), types.StringDatum(hm)}
	}
	return makeChunk(t, newAlloc(t), q10Names, q10Types, rows, nil)
}

// TestPartitionedNoAllocs checks that writing a chunk to partitions that
// exist allocates nothing.
func TestPartitionedNoAllocs(t *testing.T) {
	cfg := optionsConfig(t, map[string]string{"connector": "file", "path": "q10", "format": "csv", "partition_by": "dt, hm"}, q10Names, q10Types)
	cfg.AppendOnly = true
	s := mustNew(t, cfg)
	open(t, s)
	defer s.Close()
	c := q10Chunk(t, 16)
	process(t, s, c)
	if allocs := testing.AllocsPerRun(10, func() { process(t, s, c) }); allocs != 0 {
		t.Errorf("%v allocations per chunk, want 0", allocs)
	}
}

// BenchmarkPartitioned writes q10's rows as CSV: unpartitioned, into one
// partition per chunk (a time-ordered stream), and into 16 partitions
// interleaved row by row, with all files open or at most 4.
func BenchmarkPartitioned(b *testing.B) {
	for _, bc := range []struct {
		name        string
		parts       int
		partitioned bool
		maxOpen     string
	}{
		{"unpartitioned", 1, false, ""},
		{"one_partition", 1, true, ""},
		{"interleaved_16", 16, true, ""},
		{"interleaved_16_open_4", 16, true, "4"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := map[string]string{"connector": "file", "path": "q10", "format": "csv"}
			if bc.partitioned {
				opts["partition_by"] = "dt, hm"
			}
			if bc.maxOpen != "" {
				opts["max_open_files"] = bc.maxOpen
			}
			cfg := optionsConfig(b, opts, q10Names, q10Types)
			cfg.AppendOnly = true
			s := mustNew(b, cfg)
			open(b, s)
			defer s.Close()
			c := q10Chunk(b, bc.parts)
			b.ReportAllocs()
			b.SetBytes(int64(len(must(s.enc.encode(c)))))
			for b.Loop() {
				process(b, s, c)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.NumRows()), "ns/row")
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
