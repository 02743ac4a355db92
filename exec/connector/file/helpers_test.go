package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/exectest"
)

// cols builds columns from "name TYPE" specs; a trailing NOT NULL makes the
// column non-nullable.
func cols(t testing.TB, specs ...string) []catalog.Column {
	t.Helper()
	out := make([]catalog.Column, len(specs))
	for i, spec := range specs {
		name, typ, _ := strings.Cut(spec, " ")
		nullable := true
		if rest, ok := strings.CutSuffix(typ, " NOT NULL"); ok {
			typ, nullable = rest, false
		}
		ty, err := types.Parse(typ)
		if err != nil {
			t.Fatalf("column %q: %v", spec, err)
		}
		out[i] = catalog.Column{Name: name, Type: ty, Nullable: nullable}
	}
	return out
}

// writeFile writes content to name in dir and returns its path.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func appendFile(t testing.TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// testEnv is an Env on a checked allocator that records warnings.
type testEnv struct {
	*exec.Env
	alloc    *memory.CheckedAllocator
	warnings []string
}

// newTestEnv returns a testEnv whose leaks fail t when it ends.
func newTestEnv(t testing.TB) *testEnv {
	alloc := exectest.Alloc(t)
	e := &testEnv{Env: exec.NewTestEnv(alloc), alloc: alloc}
	e.OnWarning = func(msg string) { e.warnings = append(e.warnings, msg) }
	return e
}

// fileAt writes content to a file name in a new directory, the file root,
// and returns cfg set to read it.
func fileAt(t testing.TB, name, content string, cfg Config) Config {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, name, content)
	cfg.Path, cfg.Root = name, conntest.RootAt(t, dir)
	return cfg
}

// newSource returns the source of cfg, closed when t ends.
func newSource(t testing.TB, cfg Config) *Source {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openSource returns the source of cfg opened on env, closed when t ends.
func openSource(t testing.TB, cfg Config, env *testEnv) *Source {
	t.Helper()
	s := newSource(t, cfg)
	if err := s.Open(context.Background(), env.Env); err != nil {
		t.Fatal(err)
	}
	return s
}

// assertLines fails t unless got and want are the same lines.
func assertLines(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// readCase is a case of the CSV and JSON reading tests: a file's content,
// the stream's columns ("name TYPE"), and the rows, warnings and count of
// bad rows reading it must give.
type readCase struct {
	name     string
	content  string
	cols     []string
	header   bool // CSV
	delim    byte // CSV
	want     []string
	wantWarn []string
	wantBad  int64
}

// runReadCases reads each case's content as a file name of format, at
// every read limit.
func runReadCases(t *testing.T, name, format string, tests []readCase) {
	for _, tt := range tests {
		for _, limit := range readLimits {
			t.Run(fmt.Sprintf("%s/read=%d", tt.name, limit), func(t *testing.T) {
				env := newTestEnv(t)
				cfg := fileAt(t, name, tt.content, Config{Format: format, Header: tt.header, Delimiter: tt.delim, Columns: cols(t, tt.cols...)})
				rows, err := readAll(t, cfg, env, limit)
				if err != nil {
					t.Fatal(err)
				}
				assertLines(t, "rows", rows, tt.want)
				assertLines(t, "warnings", env.warnings, tt.wantWarn)
				if got := env.Metrics.BadRows.Load(); got != tt.wantBad {
					t.Errorf("bad rows = %d, want %d", got, tt.wantBad)
				}
			})
		}
	}
}

// formatChunk renders each row of c as its values separated by " | ":
// NULL as NULL, the empty string as (empty).
func formatChunk(t testing.TB, c exec.Chunk, ts []types.T) []string {
	t.Helper()
	if c.Ops != nil {
		t.Fatalf("chunk has ops %v; want all inserts (nil)", c.Ops)
	}
	var out []string
	for _, row := range types.Rows(c.Batch, ts) {
		vals := make([]string, len(row))
		for j, d := range row {
			vals[j] = types.Format(d, ts[j])
			if !d.Null && ts[j].Kind == types.Varchar && d.S == "" {
				vals[j] = "(empty)"
			}
		}
		out = append(out, strings.Join(vals, " | "))
	}
	return out
}

func typesOf(cs []catalog.Column) []types.T {
	ts := make([]types.T, len(cs))
	for i, c := range cs {
		ts[i] = c.Type
	}
	return ts
}

// drain reads a bounded source to io.EOF (or a followed one to
// exec.ErrCaughtUp), returning the formatted rows and the error that ended
// it (nil for io.EOF and ErrCaughtUp).
func drain(t testing.TB, s *Source, ts []types.T) ([]string, error) {
	t.Helper()
	var rows []string
	for {
		c, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) || errors.Is(err, exec.ErrCaughtUp) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		if c.NumRows() == 0 {
			t.Fatalf("Next returned an empty chunk")
		}
		rows = append(rows, formatChunk(t, c, ts)...)
		c.Batch.Release()
	}
}

// readLimits are the read sizes tests run with: small ones put buffer
// boundaries everywhere in a record; 0 is no limit.
var readLimits = []int{0, 1, 2, 3, 7}

// readAll opens a source for cfg, drains it and closes it. Each read of the
// file returns at most readLimit bytes, into a buffer that starts tiny (0:
// no limit, the normal buffer).
func readAll(t testing.TB, cfg Config, env *testEnv, readLimit int) ([]string, error) {
	t.Helper()
	s := newSource(t, cfg)
	if readLimit > 0 {
		// A tiny buffer makes records outgrow it, so growth is tested too.
		s.rd.readLimit, s.rd.buf = readLimit, make([]byte, 4)
	}
	if err := s.Open(context.Background(), env.Env); err != nil {
		return nil, err
	}
	return drain(t, s, typesOf(cfg.Columns))
}
