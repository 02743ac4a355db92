package file

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/internal/position"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// positionCSV is a CSV file with what positions must step over: a
// byte-order mark, a header, CRLF line ends, a quoted field spanning
// lines, blank lines, and eight bad rows (more than are reported).
func positionCSV() string {
	var b strings.Builder
	b.WriteString("\uFEFFid,name,price\r\n")
	for i := range 60 {
		switch {
		case i%7 == 3:
			fmt.Fprintf(&b, "%d,bad%d,x%d\r\n", i, i, i) // bad price
		case i%11 == 5:
			fmt.Fprintf(&b, "%d,\"two\nlines %d\",%d\n", i, i, i*10)
		case i%13 == 8:
			fmt.Fprintf(&b, "\n%d,after a blank line,%d\n", i, i)
		default:
			fmt.Fprintf(&b, "%d,n%d,%d\n", i, i, i*10)
		}
	}
	return b.String()
}

// positionJSON is a JSON-lines file with bad and blank lines and no line
// break after the last line.
func positionJSON() string {
	var b strings.Builder
	for i := range 50 {
		switch {
		case i%6 == 2:
			fmt.Fprintf(&b, "{\"id\": %d, \"price\": \"x\"}\n", i)
		case i%9 == 4:
			fmt.Fprintf(&b, "   \n{\"id\": %d, \"name\": \"n%d\"}\n", i, i)
		default:
			fmt.Fprintf(&b, "{\"id\": %d, \"name\": \"n%d\", \"price\": %d}\n", i, i, i*10)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// runs records the warnings of reads: a first source starts a new run, a
// resumed one continues it.
type runs struct{ warnings [][]string }

// opener returns an opener of cfg with batch size batch and reads of at
// most readLimit bytes (0: unlimited), whose warnings go to rs.
func (rs *runs) opener(cfg Config, batch, readLimit int, resumed bool) postest.Opener {
	return func(t testing.TB) exec.Positioned {
		cfg := cfg
		cfg.BatchSize = batch
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if readLimit > 0 {
			s.rd.readLimit, s.rd.buf = readLimit, make([]byte, 4)
		}
		env := newTestEnv(t)
		if !resumed {
			rs.warnings = append(rs.warnings, nil)
		}
		run := len(rs.warnings) - 1
		env.OnWarning = func(msg string) { rs.warnings[run] = append(rs.warnings[run], msg) }
		if err := s.Open(context.Background(), env.Env); err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// check fails t unless every run warned as the first, uninterrupted one.
func (rs *runs) check(t *testing.T) {
	t.Helper()
	if len(rs.warnings[0]) != 6 {
		t.Fatalf("the uninterrupted read warned %q, want 5 bad rows and the limit", rs.warnings[0])
	}
	for i, w := range rs.warnings[1:] {
		if !slices.Equal(w, rs.warnings[0]) {
			t.Fatalf("cut %d warned\n%q\nwant\n%q", i, w, rs.warnings[0])
		}
	}
}

// TestExhaustedAtEnd: a file source, whole or split, seeked to where a
// read to its end stopped has nothing left; a followed file has nothing
// yet, until lines are appended.
func TestExhaustedAtEnd(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,name,price\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,n%d,%d\n", i, i, i*10)
	}
	for _, follow := range []bool{false, true} {
		cfg := fileAt(t, fmt.Sprintf("e%t.csv", follow), b.String(), Config{Format: FormatCSV, Header: true, Follow: follow,
			Columns: cols(t, "id BIGINT", "name VARCHAR", "price BIGINT")})
		rs := &runs{}
		postest.ExhaustedAtEnd(t, rs.opener(cfg, 4, 0, false), rs.opener(cfg, 4, 0, true))
		if !follow {
			for inst := range 3 {
				postest.ExhaustedAtEnd(t, rs.splitOpener(cfg, inst, 3, 4, 0, false), rs.splitOpener(cfg, inst, 3, 4, 0, true))
			}
			continue
		}
		a := rs.opener(cfg, 4, 0, false)(t)
		postest.Read(t, a, -1)
		pos, err := a.Position()
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		appendFile(t, filepath.Join(cfg.Root.Dir(), "etrue.csv"), "40,n40,400\n")
		src := rs.opener(cfg, 4, 0, true)(t)
		if err := src.Seek(context.Background(), pos); err != nil {
			t.Fatal(err)
		}
		if src.(*Source).Exhausted() {
			t.Error("a followed file seeked before lines appended since is exhausted")
		}
		src.Close()
	}
}

// TestPositionResume reads CSV and JSON-lines files in two parts, cut at
// random chunk boundaries, at the start and at the end, with read-ahead of
// various sizes, and checks that they make the uninterrupted read: the
// same chunks, or with another batch size the same rows, and the same
// warnings with the same line numbers.
func TestPositionResume(t *testing.T) {
	for _, tc := range []struct {
		format, name, content string
		header                bool
	}{
		{FormatCSV, "p.csv", positionCSV(), true},
		{FormatJSON, "p.jsonl", positionJSON(), false},
	} {
		for _, follow := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/follow=%t", tc.format, follow), func(t *testing.T) {
				cfg := fileAt(t, tc.name, tc.content, Config{Format: tc.format, Header: tc.header, Follow: follow,
					Columns: cols(t, "id BIGINT", "name VARCHAR", "price BIGINT")})
				if follow && !strings.HasSuffix(tc.content, "\n") {
					appendFile(t, filepath.Join(cfg.Root.Dir(), tc.name), "\n")
				}
				for _, rl := range [][2]int{{0, 0}, {3, 0}, {0, 5}, {7, 2}} {
					rs := &runs{}
					postest.Resume(t, rs.opener(cfg, 4, rl[0], false), rs.opener(cfg, 4, rl[1], true), -1, 8, true)
					rs.check(t)
					rs = &runs{}
					postest.Resume(t, rs.opener(cfg, 5, rl[0], false), rs.opener(cfg, 3, rl[1], true), -1, 8, false)
					rs.check(t)
				}
			})
		}
	}
}

// TestPositionFollowed checks that a followed file resumed at its end
// reads only what was appended since.
func TestPositionFollowed(t *testing.T) {
	cfg := fileAt(t, "f.csv", "id\n1\n2\n", Config{Format: FormatCSV, Header: true, Follow: true, Columns: cols(t, "id BIGINT")})
	rs := &runs{}
	a := rs.opener(cfg, 10, 0, false)(t)
	if got := postest.Read(t, a, -1); !slices.Equal(slices.Concat(got...), []string{"1", "2"}) {
		t.Fatalf("read %v", got)
	}
	pos, err := a.Position()
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	appendFile(t, filepath.Join(cfg.Root.Dir(), "f.csv"), "3\n4")
	b := rs.opener(cfg, 10, 0, true)(t)
	defer b.Close()
	if err := b.Seek(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	if got := postest.Read(t, b, -1); !slices.Equal(slices.Concat(got...), []string{"3"}) {
		t.Fatalf("resumed, read %v, want the complete appended line", got)
	}
}

// TestPositionFail checks that with on_error = 'fail' a source positioned
// after its bad row's error resumes before the row, and fails on it
// again with the same line.
func TestPositionFail(t *testing.T) {
	cfg := fileAt(t, "f.csv", "id\n1\n2\n3\nx\n5\n", Config{Format: FormatCSV, Header: true, OnError: OnErrorFail, Columns: cols(t, "id BIGINT")})
	rs := &runs{}
	ctx := context.Background()
	a := rs.opener(cfg, 2, 0, false)(t)
	for range 2 {
		c, err := a.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c.Batch.Release()
	}
	_, errA := a.Next(ctx)
	pos, err := a.Position()
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	b := rs.opener(cfg, 2, 0, true)(t)
	defer b.Close()
	if err := b.Seek(ctx, pos); err != nil {
		t.Fatal(err)
	}
	_, errB := b.Next(ctx)
	var re *RowError
	if !errors.As(errA, &re) || errB == nil || errB.Error() != errA.Error() || re.Line != 5 {
		t.Fatalf("resumed: %v, want %v (line 5) again", errB, errA)
	}
}

// TestPositionRefused checks that positions of another file, other
// options or another kind of source, damaged ones, and ones the file no
// longer holds (it shrank, or the offset is not where a line starts) are
// refused with a *position.Error naming the file, and Seek out of order
// with an error.
func TestPositionRefused(t *testing.T) {
	content := "id,name\n1,a\n2,b\n3,c\n"
	dir := t.TempDir()
	writeFile(t, dir, "a.csv", content)
	writeFile(t, dir, "b.csv", content)
	base := Config{Format: FormatCSV, Header: true, Root: conntest.RootAt(t, dir), Path: "a.csv", Columns: cols(t, "id BIGINT")}
	rs := &runs{}
	posAfter := func(cfg Config, chunks int) []byte {
		s := rs.opener(cfg, 1, 0, false)(t)
		defer s.Close()
		postest.Read(t, s, chunks)
		pos, err := s.Position()
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	with := func(f func(*Config)) Config {
		c := base
		f(&c)
		return c
	}
	pos := posAfter(base, 2)
	craft := func(offset, line uint64, headerRead bool) []byte {
		w := position.NewWriter(positionTag)
		w.String("a.csv")
		w.String(newSourceOf(t, base).identity())
		w.Uint(offset)
		w.Uint(line)
		w.Uint(boolUint(headerRead))
		w.Uint(0)
		return w.Bytes()
	}
	other := position.NewWriter("nexmark")
	other.Uint(1)
	postest.RefusesAll(t, postest.Closing(rs.opener(base, 1, 0, true)), []postest.Refusal{
		{Name: "truncated", Pos: pos[:len(pos)-1], Want: "checksum mismatch"},
		{Name: "another source", Pos: other.Bytes(), Want: `a "nexmark" source's, not a file source's`},
		{Name: "another file", Pos: posAfter(with(func(c *Config) { c.Path = "b.csv" }), 2), Want: "the position is of file 'b.csv'"},
		{Name: "other options", Pos: posAfter(with(func(c *Config) { c.Header = false }), 2), Want: "header=false delimiter=',', not format=csv header=true"},
		{Name: "beyond the end", Pos: craft(100, 5, true), Want: "the file has 20 bytes, fewer than the position's 100"},
		{Name: "mid-line", Pos: craft(13, 3, true), Want: "byte 13 is not at the start of a line"},
		{Name: "in the header", Pos: craft(3, 1, true), Want: "byte 3 is within the CSV header, which ends at byte 8"},
		{Name: "line beyond the offset", Pos: craft(12, 20, true), Want: "line 20 cannot start at byte 12"},
		{Name: "header unread", Pos: craft(12, 3, false), Want: "past a header it did not read"},
	}, func(t *testing.T, s exec.Positioned, pos []byte) {
		if !strings.HasPrefix(errOf(s, pos), "file source a.csv: cannot seek to the position: ") {
			t.Fatalf("the error does not name the file: %s", errOf(s, pos))
		}
	})

	// A file that shrank below the position.
	end := posAfter(base, -1)
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("id,name\n1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := rs.opener(base, 1, 0, true)(t)
	defer s.Close()
	postest.Refused(t, s, end, "file source a.csv: cannot seek to the position: the file has 12 bytes, fewer than the position's 20: it was truncated or replaced")
	postest.Read(t, s, 1)
	if err := s.Seek(context.Background(), pos); err == nil || !strings.Contains(err.Error(), "Seek after Next") {
		t.Fatalf("Seek after Next: %v", err)
	}
	unopened := newSourceOf(t, base)
	if err := unopened.Seek(context.Background(), pos); !errors.Is(err, errNotOpen) {
		t.Fatalf("Seek before Open: %v", err)
	}
}

// errOf returns the text of the error s.Seek(pos) returns.
func errOf(s exec.Positioned, pos []byte) string {
	if err := s.Seek(context.Background(), pos); err != nil {
		return err.Error()
	}
	return ""
}

// newSourceOf returns an unopened source of cfg.
func newSourceOf(t testing.TB, cfg Config) *Source {
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
