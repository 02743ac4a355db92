package file

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/connector"
)

// splitCase is a file the split tests read at many parallelisms.
type splitCase struct {
	name, content string
	format        string
	header        bool
}

// csvRows returns n CSV rows (id, name, price) ended by eol, the last
// one too when final is set.
func csvRows(n int, eol string, final bool) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,n%d,%d", i, i, i*10)
		if i < n-1 || final {
			b.WriteString(eol)
		}
	}
	return b.String()
}

// jsonRows returns n JSON lines (id, name, price) ended by eol, the last
// one too when final is set.
func jsonRows(n int, eol string, final bool) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id": %d, "name": "n%d", "price": %d}`, i, i, i*10)
		if i < n-1 || final {
			b.WriteString(eol)
		}
	}
	return b.String()
}

// quotedCSV has records that span lines, some of whose lines look like
// records of their own, doubled quotes, a quote inside an unquoted field,
// text after a closing quote, and, at its end, a quoted field never
// closed, which makes the rest of the file one bad record.
func quotedCSV() string {
	var b strings.Builder
	b.WriteString("id,name,price\n")
	for i := range 40 {
		switch i % 8 {
		case 1:
			fmt.Fprintf(&b, "%d,\"first\n%d,fake,%d\nlast\",%d\n", i, 900+i, 9000+i, i*10)
		case 3:
			fmt.Fprintf(&b, "%d,\"crlf\r\n\"\"quoted\"\"\r\n\",%d\r\n", i, i*10)
		case 4:
			fmt.Fprintf(&b, "%d,5\" screen,%d\n", i, i*10)
		case 6:
			fmt.Fprintf(&b, "%d,\"x\"y,%d\n", i, i*10)
		default:
			fmt.Fprintf(&b, "%d,n%d,%d\n", i, i, i*10)
		}
	}
	b.WriteString("40,\"never closed\n41,n41,410\n42,n42,420\n")
	return b.String()
}

// badCSV has a bad row every few lines, more than are reported.
func badCSV() string {
	var b strings.Builder
	b.WriteString("id,name,price\n")
	for i := range 60 {
		if i%5 == 2 {
			fmt.Fprintf(&b, "%d,bad,x%d\n", i, i)
			continue
		}
		fmt.Fprintf(&b, "%d,n%d,%d\n", i, i, i*10)
	}
	return b.String()
}

// longLines has lines longer than a split of the file at parallelism 2
// and more, among short ones.
func longLines(format string) string {
	var b strings.Builder
	long := strings.Repeat("x", 700)
	for i := range 12 {
		name := fmt.Sprintf("n%d", i)
		if i%4 == 1 {
			name = long
		}
		if format == FormatJSON {
			fmt.Fprintf(&b, "{\"id\": %d, \"name\": %q, \"price\": %d}\n", i, name, i*10)
		} else {
			fmt.Fprintf(&b, "%d,%s,%d\n", i, name, i*10)
		}
	}
	return b.String()
}

func splitCases() []splitCase {
	const hdr = "id,name,price\n"
	return []splitCase{
		{"csv/lf", hdr + csvRows(30, "\n", true), FormatCSV, true},
		{"csv/crlf", "id,name,price\r\n" + csvRows(30, "\r\n", true), FormatCSV, true},
		{"csv/no-final-newline", hdr + csvRows(30, "\n", false), FormatCSV, true},
		{"csv/no-header", csvRows(30, "\n", true), FormatCSV, false},
		{"csv/empty", "", FormatCSV, true},
		{"csv/header-only", hdr, FormatCSV, true},
		{"csv/header-only-unterminated", "id,name,price", FormatCSV, true},
		{"csv/two-rows", hdr + csvRows(2, "\n", true), FormatCSV, true},
		{"csv/one-row-unterminated", "1,a,10", FormatCSV, false},
		{"csv/long-lines", longLines(FormatCSV), FormatCSV, false},
		{"csv/blank-lines", "\n\n" + hdr + "\n1,a,10\n\n\n2,b,20\r\n\r\n3,c,30\n\n", FormatCSV, true},
		{"csv/quoted", quotedCSV(), FormatCSV, true},
		{"csv/bom", "\uFEFF" + hdr + csvRows(20, "\n", true), FormatCSV, true},
		{"csv/bom-no-header", "\uFEFF" + csvRows(3, "\n", true), FormatCSV, false},
		{"csv/bom-quoted", "\uFEFF\"a\nb\",1,2\n" + csvRows(3, "\n", true), FormatCSV, false},
		{"csv/bad-rows", badCSV(), FormatCSV, true},
		{"csv/positions", positionCSV(), FormatCSV, true},
		{"json/lf", jsonRows(30, "\n", true), FormatJSON, false},
		{"json/crlf", jsonRows(30, "\r\n", true), FormatJSON, false},
		{"json/no-final-newline", jsonRows(30, "\n", false), FormatJSON, false},
		{"json/empty", "", FormatJSON, false},
		{"json/one-line", `{"id": 1}`, FormatJSON, false},
		{"json/long-lines", longLines(FormatJSON), FormatJSON, false},
		{"json/blank-lines", "\n  \n" + jsonRows(5, "\n\n \t\n", true), FormatJSON, false},
		{"json/bom", "\uFEFF" + jsonRows(20, "\n", true), FormatJSON, false},
		{"json/bad-rows", positionJSON(), FormatJSON, false},
	}
}

// configOf writes c's file and returns a config reading it.
func configOf(t *testing.T, c splitCase) Config {
	name := "f.csv"
	if c.format == FormatJSON {
		name = "f.jsonl"
	}
	return fileAt(t, name, c.content, Config{Format: c.format, Header: c.header, BatchSize: 4,
		Columns: cols(t, "id BIGINT", "name VARCHAR", "price BIGINT")})
}

// allWarnings reads cfg's file as one with no limit on warnings: one for
// every bad row, naming its line.
func allWarnings(t *testing.T, cfg Config, p, readLimit int) splitRead {
	t.Helper()
	var r splitRead
	srcs, envs := openSplits(t, cfg, p, readLimit, &r.warnings)
	for i, s := range srcs {
		s.shared.reports.Store(-1 << 40) // every split shares it
		rows, err := drain(t, s, typesOf(cfg.Columns))
		if err != nil {
			t.Fatalf("split %d of %d: %v", i, p, err)
		}
		r.rows = append(r.rows, rows...)
		r.bad += envs[i].Metrics.BadRows.Load()
	}
	return r
}

// TestSplitsReadEveryRecordOnce reads files with what splits must cut
// right (CRLF, no final line break, a header, a byte-order mark, blank
// lines, lines longer than a split, quoted fields spanning lines that
// look like records, fewer lines than splits, nothing at all) at
// parallelisms 1 to 9 and 40 and at more splits than bytes, with reads
// of any size. Read one after the other, the splits give the rows,
// warnings and bad-row count of the file read as one, in order; read in
// turns, the same multiset of rows, as many warnings, each of a true bad
// row at its true line. With no limit on warnings, every bad row is
// reported at its line by whichever split reads it.
func TestSplitsReadEveryRecordOnce(t *testing.T) {
	for _, c := range splitCases() {
		t.Run(c.name, func(t *testing.T) {
			cfg := configOf(t, c)
			one := readSplits(t, cfg, 1, 0, false)
			every := allWarnings(t, cfg, 1, 0)
			ps := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 40}
			if len(c.content) < 200 {
				ps = append(ps, len(c.content)+2) // more splits than bytes
			}
			for _, p := range ps {
				for _, rl := range []int{0, 3} {
					what := fmt.Sprintf("p%d read=%d", p, rl)
					seq := readSplits(t, cfg, p, rl, false)
					assertLines(t, what+": rows", seq.rows, one.rows)
					assertLines(t, what+": warnings", seq.warnings, one.warnings)
					if seq.bad != one.bad {
						t.Errorf("%s: %d bad rows, want %d", what, seq.bad, one.bad)
					}
					turns := readSplits(t, cfg, p, rl, true)
					assertLines(t, what+" in turns: rows", sorted(turns.rows), sorted(one.rows))
					checkWarnings(t, what+" in turns", turns.warnings, every.warnings, len(one.warnings))
					if turns.bad != one.bad {
						t.Errorf("%s in turns: %d bad rows, want %d", what, turns.bad, one.bad)
					}
					all := allWarnings(t, cfg, p, rl)
					assertLines(t, what+": every warning", all.warnings, every.warnings)
				}
			}
		})
	}
}

// checkWarnings fails t unless got holds n warnings: distinct ones of
// every (the warnings of every bad row), and the limit's notice last if
// every has more than maxReported.
func checkWarnings(t *testing.T, what string, got, every []string, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%s: %d warnings %q, want %d", what, len(got), got, n)
	}
	rows := got
	if len(every) > maxReported {
		last := got[len(got)-1]
		if !strings.Contains(last, "more than 5 bad rows") {
			t.Errorf("%s: the last warning is %q, want the limit's", what, last)
		}
		rows = got[:len(got)-1]
	}
	for i, w := range rows {
		if !slices.Contains(every, w) || slices.Contains(rows[:i], w) {
			t.Errorf("%s: warning %q is not of a distinct bad row %q", what, w, every)
		}
	}
}

// TestSplitsRandomCSV reads random CSV files, made of plain, quoted,
// multi-line, blank and bad records with LF or CRLF line ends, in
// random numbers of splits: one after the other, they read what the file
// read as one does, with every bad row at its line.
func TestSplitsRandomCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	kinds := []string{
		"%d,n,%d%s", "%d,\"a\nb\",%d%s", "%d,\"\"\"q\"\",\n%d,x,1\",%d%s", "%s%d,bad,x%d%s", "%d,5\" x,%d%s",
	}
	for f := range 150 {
		var b strings.Builder
		b.WriteString("id,name,price\n")
		for i := range rng.IntN(30) {
			eol := "\n"
			if rng.IntN(3) == 0 {
				eol = "\r\n"
			}
			switch k := rng.IntN(len(kinds)); k {
			case 2:
				fmt.Fprintf(&b, kinds[k], i, 500+i, i, eol)
			case 3:
				blank := ""
				if rng.IntN(2) == 0 {
					blank = eol
				}
				fmt.Fprintf(&b, kinds[k], blank, i, i, eol)
			default:
				fmt.Fprintf(&b, kinds[k], i, i, eol)
			}
		}
		content := b.String()
		if rng.IntN(4) == 0 {
			content = strings.TrimRight(content, "\r\n")
		}
		cfg := configOf(t, splitCase{content: content, format: FormatCSV, header: true})
		want := allWarnings(t, cfg, 1, 0)
		p := 2 + rng.IntN(12)
		got := allWarnings(t, cfg, p, rng.IntN(2)*5)
		assertLines(t, fmt.Sprintf("file %d at p%d: rows", f, p), got.rows, want.rows)
		assertLines(t, fmt.Sprintf("file %d at p%d: warnings", f, p), got.warnings, want.warnings)
		if t.Failed() {
			t.Fatalf("file %d:\n%s", f, content)
		}
	}
}

// TestSplitsFail reads files with bad rows with on_error = 'fail' in
// 2 and 4 splits: each split fails at the first bad row it reads, with
// the error of that row at its line; the first split to fail is the one
// with the file's first bad row.
func TestSplitsFail(t *testing.T) {
	for _, c := range []splitCase{
		{"csv", badCSV(), FormatCSV, true},
		{"json", positionJSON(), FormatJSON, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := configOf(t, c)
			every := allWarnings(t, cfg, 1, 0).warnings
			cfg.OnError = OnErrorFail
			for _, p := range []int{2, 4} {
				r := readSplits(t, cfg, p, 0, false)
				var got []string
				for i, err := range r.errs {
					var re *RowError
					if !errors.As(err, &re) {
						t.Fatalf("p%d: split %d ended with %v, want a bad row's error", p, i, err)
					}
					got = append(got, err.Error())
				}
				if got[0] != every[0] {
					t.Errorf("p%d: the first split failed with %q, want %q", p, got[0], every[0])
				}
				for i, e := range got {
					if !slices.Contains(every, e) || slices.Contains(got[:i], e) {
						t.Errorf("p%d: split %d failed with %q, not a distinct bad row of %q", p, i, e, every)
					}
				}
			}
		})
	}
}

// TestSplitOpen checks the splits' bounds and what Open refuses: an
// instance outside the parallelism, and a followed file in splits.
func TestSplitOpen(t *testing.T) {
	for _, tc := range []struct {
		inst, p int
		size    int64
		lo, hi  int64
	}{
		{0, 1, 100, -1, 1<<63 - 1},
		{0, 3, 100, -1, 33},
		{1, 3, 100, 33, 66},
		{2, 3, 100, 66, 1<<63 - 1},
		{1, 4, 2, 0, 1},
		{3, 256, 1<<62 + 5, (1<<62 + 5) / 256 * 3, (1<<62 + 5) / 256 * 4},
	} {
		sp := splitOf(tc.inst, tc.p, tc.size)
		if sp.lo != tc.lo || sp.hi != tc.hi {
			t.Errorf("split %d of %d of %d bytes: (%d, %d], want (%d, %d]", tc.inst, tc.p, tc.size, sp.lo, sp.hi, tc.lo, tc.hi)
		}
	}
	cfg := fileAt(t, "f.csv", "a\n1\n", Config{Format: FormatCSV, Header: true, Columns: cols(t, "a BIGINT")})
	env := newTestEnv(t)
	env.Instance, env.Parallelism = 2, 2
	if err := newSource(t, cfg).Open(context.Background(), env.Env); err == nil || err.Error() != "file connector: instance 2 is not among the 2 instances" {
		t.Errorf("Open of instance 2 of 2: %v", err)
	}
	cfg.Follow = true
	env.Instance = 0
	if err := newSource(t, cfg).Open(context.Background(), env.Env); err == nil ||
		err.Error() != "file connector: f.csv: a followed file is read as one split, not by 2 instances" {
		t.Errorf("Open of a followed file in splits: %v", err)
	}
}

// TestSplitTraits: a file is read in splits unless it is followed.
func TestSplitTraits(t *testing.T) {
	for follow, want := range map[string]bool{"": true, "false": true, "true": false} {
		opts := map[string]string{"connector": "file", "path": "f.csv"}
		if follow != "" {
			opts["follow"] = follow
		}
		tr := Connector{}.Traits(connector.Spec{Options: opts})
		if tr.Splittable != want || tr.Bounded != want {
			t.Errorf("follow = %q: traits %+v, want splittable and bounded %t", follow, tr, want)
		}
	}
}

// TestSplitsShareTheirSize: splits opened as one stage divide the size
// the first of them saw, even if the file grew before the others opened;
// the last reads what was appended.
func TestSplitsShareTheirSize(t *testing.T) {
	cfg := configOf(t, splitCase{content: jsonRows(20, "\n", true), format: FormatJSON})
	var warnings []string
	envs := stageEnvs(t, 3, &warnings)
	var rows []string
	for i, env := range envs {
		if i == 1 {
			appendFile(t, filepath.Join(cfg.Root.Dir(), "f.jsonl"), jsonRows(25, "\n", true)[len(jsonRows(20, "\n", true)):])
		}
		s := newSource(t, cfg)
		if err := s.Open(context.Background(), env.Env); err != nil {
			t.Fatal(err)
		}
		got, err := drain(t, s, typesOf(cfg.Columns))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, got...)
	}
	want := readSplits(t, cfg, 1, 0, false).rows
	assertLines(t, "rows", rows, want)
	if len(want) != 25 {
		t.Fatalf("read %d rows of 25", len(want))
	}
}
