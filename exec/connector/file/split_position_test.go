package file

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/position"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// splitOpener returns an opener of split inst of p of cfg's file, with
// batch size batch and reads of at most readLimit bytes (0: unlimited),
// whose warnings go to rs: a first source starts a new run, a resumed one
// continues it.
func (rs *runs) splitOpener(cfg Config, inst, p, batch, readLimit int, resumed bool) postest.Opener {
	return func(t testing.TB) exec.Positioned {
		cfg := cfg
		cfg.BatchSize = batch
		s := newSourceOf(t, cfg)
		if readLimit > 0 {
			s.rd.readLimit, s.rd.buf = readLimit, make([]byte, 4)
		}
		if !resumed {
			rs.warnings = append(rs.warnings, nil)
		}
		run := len(rs.warnings) - 1
		env := newTestEnv(t)
		env.Instance, env.Parallelism = inst, p
		env.OnWarning = func(msg string) { rs.warnings[run] = append(rs.warnings[run], msg) }
		if err := s.Open(context.Background(), env.Env); err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// TestSplitPositionResume reads each split of CSV and JSON-lines files at
// parallelisms 2 to 4 in two parts, cut at random chunk boundaries, and
// checks that they make the split's uninterrupted read: the same chunks,
// and the same warnings with the same lines.
func TestSplitPositionResume(t *testing.T) {
	for _, tc := range []struct {
		format, name, content string
		header                bool
	}{
		{FormatCSV, "p.csv", positionCSV(), true},
		{FormatJSON, "p.jsonl", positionJSON(), false},
	} {
		cfg := fileAt(t, tc.name, tc.content, Config{Format: tc.format, Header: tc.header,
			Columns: cols(t, "id BIGINT", "name VARCHAR", "price BIGINT")})
		for p := 2; p <= 4; p++ {
			for inst := range p {
				t.Run(fmt.Sprintf("%s/split-%d-of-%d", tc.format, inst, p), func(t *testing.T) {
					for _, rl := range [][2]int{{0, 0}, {3, 5}} {
						rs := &runs{}
						postest.Resume(t, rs.splitOpener(cfg, inst, p, 3, rl[0], false), rs.splitOpener(cfg, inst, p, 3, rl[1], true), -1, 6, true)
						for i, w := range rs.warnings[1:] {
							if !slices.Equal(w, rs.warnings[0]) {
								t.Fatalf("cut %d warned\n%q\nwant\n%q", i, w, rs.warnings[0])
							}
						}
					}
				})
			}
		}
	}
}

// stageCut reads cfg's file in p splits as one stage, a random number of
// chunks of each in turn, and returns the rows read, the warnings and bad
// rows, and every split's position.
func stageCut(t *testing.T, cfg Config, p int, rng *rand.Rand) (splitRead, [][]byte) {
	t.Helper()
	var r splitRead
	srcs, envs := openSplits(t, cfg, p, 0, &r.warnings)
	ts := typesOf(cfg.Columns)
	stop := make([]int, p)
	for i := range stop {
		stop[i] = rng.IntN(5)
	}
	for round := range 5 {
		for i, s := range srcs {
			if round >= stop[i] {
				continue
			}
			c, err := s.Next(context.Background())
			if err != nil {
				stop[i] = round // io.EOF
				continue
			}
			r.rows = append(r.rows, formatChunk(t, c, ts)...)
			c.Batch.Release()
		}
	}
	pos := make([][]byte, p)
	for i, s := range srcs {
		var err error
		if pos[i], err = s.Position(); err != nil {
			t.Fatal(err)
		}
		r.bad += envs[i].Metrics.BadRows.Load()
		s.Close()
	}
	return r, pos
}

// stageResume opens cfg's file in p splits as a new stage, seeks each to
// its position and reads the rest, into r.
func stageResume(t *testing.T, cfg Config, pos [][]byte, r *splitRead) {
	t.Helper()
	srcs, envs := openSplits(t, cfg, len(pos), 0, &r.warnings)
	for i, s := range srcs {
		if err := s.Seek(context.Background(), pos[i]); err != nil {
			t.Fatalf("split %d: %v", i, err)
		}
	}
	for i, s := range srcs {
		rows, err := drain(t, s, typesOf(cfg.Columns))
		if err != nil {
			t.Fatal(err)
		}
		r.rows = append(r.rows, rows...)
		r.bad += envs[i].Metrics.BadRows.Load()
	}
}

// TestSplitStageResume cuts a read in 2 and 4 splits at random points of
// each, as a checkpoint does, and resumes every split in a new stage: the
// two runs read every row once, count every bad row once, and warn as
// many times as one read does, each of a distinct bad row at its line.
// When the file grew between the runs, the resumed splits divide the size
// they divided before, and the last reads what was appended.
func TestSplitStageResume(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, grow := range []bool{false, true} {
		for _, p := range []int{2, 4} {
			for k := range 10 {
				cfg := configOf(t, splitCase{content: positionCSV(), format: FormatCSV, header: true})
				first, pos := stageCut(t, cfg, p, rng)
				if grow {
					appendFile(t, filepath.Join(cfg.Root.Dir(), "f.csv"), "1000,appended,1\n1001,bad,x\n1002,appended,2\n")
				}
				stageResume(t, cfg, pos, &first)
				what := fmt.Sprintf("p%d cut %d grown=%t", p, k, grow)
				one := readSplits(t, cfg, 1, 0, false)
				every := allWarnings(t, cfg, 1, 0)
				assertLines(t, what+": rows", sorted(first.rows), sorted(one.rows))
				if first.bad != one.bad {
					t.Errorf("%s: %d bad rows, want %d", what, first.bad, one.bad)
				}
				checkWarnings(t, what, first.warnings, every.warnings, len(one.warnings))
			}
		}
	}
}

// TestSplitPositionFail checks that with on_error = 'fail' a split that
// failed on a bad row resumes before it and fails on it again, at its
// line.
func TestSplitPositionFail(t *testing.T) {
	cfg := configOf(t, splitCase{content: badCSV(), format: FormatCSV, header: true})
	cfg.OnError = OnErrorFail
	var w []string
	srcs, _ := openSplits(t, cfg, 2, 0, &w)
	_, err := drain(t, srcs[1], typesOf(cfg.Columns))
	pos, perr := srcs[1].Position()
	if perr != nil {
		t.Fatal(perr)
	}
	var re *RowError
	if !errors.As(err, &re) || re.Line != 34 {
		t.Fatalf("split 1 of 2 failed with %v, want line 34's error", err)
	}
	again, _ := openSplits(t, cfg, 2, 0, &w)
	if err := again[1].Seek(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	if _, err2 := drain(t, again[1], typesOf(cfg.Columns)); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("resumed: %v, want %v again", err2, err)
	}
}

// TestSplitPositionRefused checks that a split refuses the position of
// another split or parallelism, of the file read as one (a position
// written before files were read in splits, which a file read as one
// resumes from), one before the split's first record, and one whose
// splits divided more bytes than the file has, with a *position.Error.
func TestSplitPositionRefused(t *testing.T) {
	content := "id,name\n1,a\n2,b\n3,c\n4,d\n5,e\n6,f\n"
	cfg := fileAt(t, "a.csv", content, Config{Format: FormatCSV, Header: true, BatchSize: 1, Columns: cols(t, "id BIGINT")})
	rs := &runs{}
	posOf := func(inst, p, chunks int) []byte {
		s := rs.splitOpener(cfg, inst, p, 1, 0, false)(t)
		defer s.Close()
		postest.Read(t, s, chunks)
		pos, err := s.Position()
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	// unsplit crafts a position as the file source wrote it before files
	// were read in splits.
	unsplit := func(offset, line uint64) []byte {
		w := position.NewWriter(positionTag)
		w.String("a.csv")
		w.String(newSourceOf(t, cfg).identity())
		w.Uint(offset)
		w.Uint(line)
		w.Uint(1)
		w.Uint(0)
		return w.Bytes()
	}
	// craft crafts a position of split inst of p of size bytes.
	craft := func(inst, p, size, offset, line uint64) []byte {
		w := position.NewWriter(positionTag)
		w.String("a.csv")
		w.String(newSourceOf(t, cfg).identity())
		w.Uint(offset)
		w.Uint(line)
		w.Uint(1)
		w.Uint(0)
		w.Uint(inst)
		w.Uint(p)
		w.Uint(size)
		return w.Bytes()
	}
	one := postest.Closing(rs.splitOpener(cfg, 1, 2, 1, 0, true))
	postest.RefusesAll(t, one, []postest.Refusal{
		{Name: "another split", Pos: posOf(0, 2, 1), Want: "the position is of split 0 of 2, not of split 1 of 2"},
		{Name: "another parallelism", Pos: posOf(1, 4, 1), Want: "the position is of split 1 of 4, not of split 1 of 2"},
		{Name: "read as one", Pos: unsplit(12, 3), Want: "the position is of the file read as one, not of split 1 of 2"},
		{Name: "before the split", Pos: craft(1, 2, 32, 12, 3), Want: "byte 12 is before byte 20, where split 1 of 2 starts"},
		{Name: "more bytes", Pos: craft(1, 2, 64, 24, 5), Want: "the file has 32 bytes, fewer than the 64 its splits divided"},
		{Name: "malformed split", Pos: craft(2, 2, 32, 24, 5), Want: "the position's split (2 of 2 of 32 bytes) is malformed"},
		{Name: "malformed size", Pos: craft(1, 2, 1<<63, 24, 5), Want: "the position's split (1 of 2 of 9223372036854775808 bytes) is malformed"},
	}, nil)

	// The file read as one resumes from an unsplit position.
	whole := rs.splitOpener(cfg, 0, 1, 10, 0, true)(t)
	defer whole.Close()
	if err := whole.Seek(context.Background(), unsplit(12, 3)); err != nil {
		t.Fatal(err)
	}
	if got := slices.Concat(postest.Read(t, whole, -1)...); !slices.Equal(got, []string{"2", "3", "4", "5", "6"}) {
		t.Fatalf("resumed from an unsplit position, read %v", got)
	}

	// A refused Seek leaves the split where Open did, even when the
	// position's splits divided another size.
	if err := os.WriteFile(filepath.Join(cfg.Root.Dir(), "a.csv"), []byte(content+"7,g\n8,h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := rs.splitOpener(cfg, 1, 2, 10, 0, true)(t)
	defer s.Close()
	postest.Refused(t, s, craft(1, 2, 32, 12, 3), "byte 12 is before byte 20, where split 1 of 2 starts")
	if got := slices.Concat(postest.Read(t, s, -1)...); !slices.Equal(got, []string{"5", "6", "7", "8"}) {
		t.Fatalf("after a refused Seek, split 1 of 2 read %v", got)
	}
}
