package sink

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
)

// fileConfig is a file sink of allTypes at name in a temporary directory.
func fileConfig(t *testing.T, name string) Config {
	return optionsConfig(t, map[string]string{"connector": "file", "path": name}, allNames, allTypes)
}

func TestFileSinkFormats(t *testing.T) {
	alloc := newAlloc(t)
	for _, tt := range []struct {
		name     string
		header   bool
		updating bool
		want     []string
	}{
		{"out.jsonl", false, false, wantJSON},
		{"out.jsonl", false, true, []string{`{"op":"+I",` + wantJSON[0][1:], `{"op":"-D",` + wantJSON[1][1:],
			`{"op":"-U",` + wantJSON[2][1:], `{"op":"+U",` + wantJSON[3][1:]}},
		{"out.csv", false, false, wantCSV},
		{"out.csv", true, false, append([]string{strings.Join(allNames, ",")}, wantCSV...)},
		{"out.csv", true, true, []string{"op," + strings.Join(allNames, ","),
			"+I," + wantCSV[0], "-D," + wantCSV[1], "-U," + wantCSV[2], "+U," + wantCSV[3]}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fileConfig(t, tt.name)
			cfg.Header, cfg.AppendOnly = tt.header, !tt.updating
			var ops []exec.Op
			if tt.updating {
				ops = allOps
			}
			s := mustNew(t, cfg)
			open(t, s)
			rows := allRows(t)
			// Two chunks: the output is their concatenation.
			process(t, s, makeChunk(t, alloc, allNames, allTypes, rows[:1], ops[:min(len(ops), 1)]))
			process(t, s, makeChunk(t, alloc, allNames, allTypes, rows[1:], ops[min(len(ops), 1):]))
			control(t, s, exec.EndOfInput)
			if got, want := readFile(t, resolved(t, cfg)), lines(tt.want...); got != want {
				t.Errorf("file holds\n%s\nwant\n%s", got, want)
			}
			closeWrote(t, s, 4)
		})
	}
}

// TestFileSinkDurableOnControl checks that the rows reach the file on each
// control that must make them durable, before Close, and not on a
// watermark (the writes are buffered).
func TestFileSinkDurableOnControl(t *testing.T) {
	alloc := newAlloc(t)
	for _, k := range []exec.ControlKind{exec.Flush, exec.Barrier, exec.EndOfInput} {
		t.Run(exec.Control{Kind: k}.String(), func(t *testing.T) {
			cfg := fileConfig(t, "out.csv")
			cfg.AppendOnly = true
			s := mustNew(t, cfg)
			defer s.Close()
			open(t, s)
			process(t, s, makeChunk(t, alloc, allNames, allTypes, allRows(t), nil))
			control(t, s, exec.Watermark)
			if got := readFile(t, resolved(t, cfg)); got != "" {
				t.Fatalf("rows reached the file before a flush: %q", got)
			}
			control(t, s, k)
			if got, want := readFile(t, resolved(t, cfg)), lines(wantCSV...); got != want {
				t.Errorf("after %v the file holds\n%s\nwant\n%s", exec.Control{Kind: k}, got, want)
			}
			// A control with nothing new written is harmless.
			control(t, s, k)
		})
	}
}

func TestFileSinkTruncatesOnOpen(t *testing.T) {
	cfg := fileConfig(t, "out.csv")
	cfg.AppendOnly, cfg.Header = true, true
	path := resolved(t, cfg)
	if err := os.WriteFile(path, []byte("old,output\nfrom,a previous run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, cfg)
	open(t, s)
	if got := readFile(t, path); got != "" {
		t.Errorf("after Open the file holds %q, want it empty", got)
	}
	rows := allRows(t)[:1]
	process(t, s, makeChunk(t, newAlloc(t), allNames, allTypes, rows, nil))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, path), lines(strings.Join(allNames, ","), wantCSV[0]); got != want {
		t.Errorf("file holds\n%s\nwant\n%s", got, want)
	}
}

func TestFileSinkLifecycle(t *testing.T) {
	ctx := context.Background()
	env := exec.NewTestEnv(memory.DefaultAllocator)
	c := makeChunk(t, newAlloc(t), allNames, allTypes, allRows(t), nil)

	s := mustNew(t, fileConfig(t, "a.json"))
	if err := s.Close(); err != nil {
		t.Fatalf("Close without Open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Open(ctx, env); !errors.Is(err, errClosed) || err.Error() != "file sink: used after Close" {
		t.Fatalf("Open after Close: %v, want an error", err)
	}

	cfg := fileConfig(t, "b.json")
	cfg.AppendOnly = true
	s = mustNew(t, cfg)
	if err := s.Process(ctx, 0, c, nil); !errors.Is(err, errNotOpen) {
		t.Fatalf("Process before Open: %v, want errNotOpen", err)
	}
	if err := s.OnControl(ctx, exec.Control{Kind: exec.Flush}, nil); !errors.Is(err, errNotOpen) {
		t.Fatalf("OnControl before Open: %v, want errNotOpen", err)
	}
	open(t, s)
	if err := s.Open(ctx, env); err == nil {
		t.Fatal("second Open succeeded")
	}
	process(t, s, c)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Process(ctx, 0, c, nil); !errors.Is(err, errClosed) {
		t.Fatalf("Process after Close: %v, want errClosed", err)
	}
	if got, want := readFile(t, s.path), lines(wantJSON...); got != want {
		t.Errorf("Close did not flush: file holds\n%s", got)
	}
}

func TestFileSinkErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("missing directory", func(t *testing.T) {
		cfg := fileConfig(t, "no/such/dir/out.csv")
		s := mustNew(t, cfg)
		err := s.Open(ctx, exec.NewTestEnv(memory.DefaultAllocator))
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), resolved(t, cfg)) {
			t.Fatalf("Open: %v, want a not-exist error naming %s", err, resolved(t, cfg))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("parallel instances", func(t *testing.T) {
		s := mustNew(t, fileConfig(t, "out.csv"))
		env := exec.NewTestEnv(memory.DefaultAllocator)
		env.Parallelism = 2
		if err := s.Open(ctx, env); err == nil || !strings.Contains(err.Error(), "2 parallel instances") {
			t.Fatalf("Open: %v, want a parallelism error", err)
		}
	})
	t.Run("write error", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full")
		}
		s := mustNew(t, Config{Connector: "file", Path: "/dev/full", Root: conntest.RootAt(t, "/dev"), Format: "csv", AppendOnly: true,
			Names: allNames, Types: allTypes})
		open(t, s)
		c := makeChunk(t, newAlloc(t), allNames, allTypes, allRows(t), nil)
		process(t, s, c) // buffered
		err := s.OnControl(ctx, exec.Control{Kind: exec.Flush}, nil)
		if !errors.Is(err, syscall.ENOSPC) || err.Error() != "file sink: write /dev/full: no space left on device" {
			t.Fatalf("flush: %v, want ENOSPC naming the path", err)
		}
		if err2 := s.Process(ctx, 0, c, nil); err2 != err {
			t.Fatalf("Process after a write error: %v, want the same error", err2)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close after a reported write error: %v", err)
		}
	})
}

func TestSinkRejectsBadChunks(t *testing.T) {
	ctx := context.Background()
	alloc := newAlloc(t)
	one := []types.T{types.BigIntT}
	rows := [][]types.Datum{{types.IntDatum(1)}, {types.IntDatum(2)}}
	tests := []struct {
		name       string
		appendOnly bool
		chunk      exec.Chunk
		want       string
	}{
		{"retraction in an append-only sink", true,
			makeChunk(t, alloc, []string{"a"}, one, rows, []exec.Op{exec.Insert, exec.Delete}),
			"print sink: the query was planned append-only, but row 2 is a -D change"},
		{"invalid op", false, makeChunk(t, alloc, []string{"a"}, one, rows, []exec.Op{7, exec.Insert}),
			"print sink: row 1 has invalid op 7"},
		{"ops for other rows", false, makeChunk(t, alloc, []string{"a"}, one, rows, []exec.Op{exec.Insert}),
			"print sink: chunk has 1 ops for 2 rows"},
		{"column count", false, makeChunk(t, alloc, []string{"a", "b"}, []types.T{types.BigIntT, types.BigIntT},
			[][]types.Datum{{types.IntDatum(1), types.IntDatum(2)}}, nil),
			"print sink: chunk has 2 columns, the sink expects 1"},
		{"column type", false, makeChunk(t, alloc, []string{"a"}, []types.T{types.VarcharT},
			[][]types.Datum{{types.StringDatum("x")}}, nil),
			"print sink: column a of type BIGINT holds an Arrow utf8 array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			s := mustNew(t, Config{Connector: "print", AppendOnly: tt.appendOnly, Names: []string{"a"}, Types: one, Stdout: &out})
			open(t, s)
			defer s.Close()
			if err := s.Process(ctx, 0, tt.chunk, nil); err == nil || err.Error() != tt.want {
				t.Fatalf("Process: %v, want %q", err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("a rejected chunk wrote %q", out.String())
			}
		})
	}
}

func TestFileSinkRelativePath(t *testing.T) {
	dir := t.TempDir()
	cfg, err := FromOptions(map[string]string{"connector": "file", "path": filepath.Join("sub", "k.jsonl")}, conntest.RootAt(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.Names, cfg.Types, cfg.AppendOnly = []string{"n"}, []types.T{types.BigIntT}, true
	s := mustNew(t, cfg)
	open(t, s)
	process(t, s, makeChunk(t, newAlloc(t), cfg.Names, cfg.Types, [][]types.Datum{{types.IntDatum(42)}}, nil))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "sub", "k.jsonl")); got != `{"n":42}`+"\n" {
		t.Errorf("file holds %q", got)
	}
}
