package file

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/fileroot"
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

// rootAt returns the file root dir, with no data directory.
func rootAt(t testing.TB, dir string) fileroot.Root {
	t.Helper()
	r, err := fileroot.New(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
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

func newTestEnv() *testEnv {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	e := &testEnv{Env: exec.NewTestEnv(alloc), alloc: alloc}
	e.OnWarning = func(msg string) { e.warnings = append(e.warnings, msg) }
	return e
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
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if readLimit > 0 {
		// A tiny buffer makes records outgrow it, so growth is tested too.
		s.rd.readLimit, s.rd.buf = readLimit, make([]byte, 4)
	}
	defer s.Close()
	if err := s.Open(context.Background(), env.Env); err != nil {
		return nil, err
	}
	return drain(t, s, typesOf(cfg.Columns))
}
