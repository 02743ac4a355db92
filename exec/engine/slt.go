package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/sql"
)

// RunConfig configures RunSLT.
type RunConfig struct {
	// Engine configures the engine a file runs on. An empty DataDir gets a
	// fresh temporary directory, removed when the file is done; an empty
	// FileRoot is the directory of the .slt file, so fixtures beside it are
	// found by relative paths (and file connectors stay in it).
	Engine Config
	// Progress, when set, receives a line per failed record as it happens
	// and, with Verbose, a line per record.
	Progress io.Writer
	// Verbose reports every record to Progress.
	Verbose bool
	// RecordTimeout bounds the time of each record (0: no limit), so a push
	// query that never ends fails its record instead of hanging the run.
	RecordTimeout time.Duration
	// FailFast stops a file at its first failed record.
	FailFast bool
	// Rewrite replaces the expected results of every query record whose
	// result differs with the actual result, in the file itself: for
	// accepting changed EXPLAIN output after reviewing it. Values keep
	// their spacing (plan lines), rows are joined by one space.
	Rewrite bool
}

// sltExecutor runs what the records of a file ask of an engine. RunSLT uses
// an engine; tests use a fake.
type sltExecutor interface {
	// Exec parses text, the SQL of a record starting at pos in its file,
	// runs its statements in order and returns the last one's result.
	Exec(ctx context.Context, text string, pos sql.Pos) (*Result, error)
	// Restart closes the engine and opens it again on the same data, with a
	// new session.
	Restart(ctx context.Context) error
	// Close closes the engine.
	Close() error
}

// RunSLT runs the sqllogictest file at path on a new engine and reports
// every record's outcome. A record that fails is a failure in the report,
// not an error; the error is for files that cannot run at all (unreadable,
// malformed, an engine that does not open) and for a cancelled ctx.
func RunSLT(ctx context.Context, path string, cfg RunConfig) (*SLTReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	recs, err := parseSLT(path, f)
	f.Close()
	if err != nil {
		return nil, err
	}
	ecfg := cfg.Engine
	if ecfg.FileRoot == "" {
		ecfg.FileRoot = filepath.Dir(path)
	}
	if ecfg.DataDir == "" {
		dir, err := os.MkdirTemp("", "eddy-slt-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		ecfg.DataDir = dir
	}
	x, err := openSLTEngine(ctx, ecfg)
	if err != nil {
		return nil, fmt.Errorf("%s: opening the engine: %w", path, err)
	}
	rep, runErr := runSLTRecords(ctx, path, recs, x, cfg)
	if err := x.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("%s: closing the engine: %w", path, err)
	}
	if cfg.Rewrite && runErr == nil && rep != nil {
		runErr = rewriteSLT(path, rep.Failures)
	}
	return rep, runErr
}

// rewriteSLT replaces the result sections of the failed query records
// with their actual results.
func rewriteSLT(path string, failures []SLTFailure) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	fs := append([]SLTFailure(nil), failures...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].DashLine > fs[j].DashLine })
	for _, f := range fs {
		if f.DashLine == 0 || f.Raw == nil && f.Diff == nil {
			continue
		}
		from := f.DashLine // 0-based index of the first result line
		to := from + f.ExpectedLines
		lines = append(lines[:from], append(append([]string(nil), f.Raw...), lines[to:]...)...)
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// sltRunner runs the records of one file.
type sltRunner struct {
	file string
	x    sltExecutor
	cfg  RunConfig
	rep  *SLTReport
}

// runSLTRecords runs parsed records on x. It stops early at halt, on
// FailFast, on a failed restart and when ctx is cancelled.
func runSLTRecords(ctx context.Context, file string, recs []sltRecord, x sltExecutor, cfg RunConfig) (*SLTReport, error) {
	start := time.Now()
	r := &sltRunner{file: file, x: x, cfg: cfg, rep: &SLTReport{File: file}}
	defer func() { r.rep.Elapsed = time.Since(start) }()
	for i := range recs {
		rec := &recs[i]
		if err := ctx.Err(); err != nil {
			return r.rep, err
		}
		if rec.kind == sltHalt {
			if !rec.skip {
				r.rep.Halted = true
				return r.rep, nil
			}
			continue
		}
		if rec.skip {
			r.rep.Skipped++
			r.progress("%s:%d: skipped", file, rec.line)
			continue
		}
		fail := r.run(ctx, rec)
		if fail == nil {
			r.rep.Passed++
			r.progress("%s:%d: ok", file, rec.line)
			continue
		}
		r.rep.Failed++
		r.rep.Failures = append(r.rep.Failures, *fail)
		if r.cfg.Progress != nil {
			fmt.Fprintln(r.cfg.Progress, fail.String())
		}
		if err := ctx.Err(); err != nil {
			return r.rep, err
		}
		if r.cfg.FailFast || rec.kind == sltRestart {
			// Without an engine nothing after a failed restart can run.
			return r.rep, nil
		}
	}
	return r.rep, nil
}

// progress writes a verbose progress line.
func (r *sltRunner) progress(format string, args ...any) {
	if r.cfg.Verbose && r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, format+"\n", args...)
	}
}

// run runs one record and returns its failure, or nil.
func (r *sltRunner) run(ctx context.Context, rec *sltRecord) *SLTFailure {
	if r.cfg.RecordTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.cfg.RecordTimeout)
		defer cancel()
	}
	fail := func(format string, args ...any) *SLTFailure {
		return &SLTFailure{File: r.file, Line: rec.line, SQL: rec.sql, Reason: fmt.Sprintf(format, args...)}
	}
	switch rec.kind {
	case sltRestart:
		if err := r.x.Restart(ctx); err != nil {
			return fail("restart failed: %s", sltErrorText(err))
		}
		return nil
	case sltInsert, sltWatermark, sltCheckpoint:
		name := map[sltKind]string{sltInsert: "insert", sltWatermark: "watermark", sltCheckpoint: "checkpoint"}[rec.kind]
		return fail("%s records are not supported yet", name)
	}
	pos := sql.Pos{Offset: rec.sqlOffset, Line: rec.sqlLine, Col: 1}
	res, err := r.exec(ctx, rec.sql, pos)
	if err == nil && res == nil {
		err = errors.New("the statement returned no result")
	}
	rows := [][]types.Datum(nil)
	if err == nil {
		rows = res.Rows
		if res.Kind == ResultStream {
			// A push query's errors can come while it streams.
			rows, err = sltDrain(ctx, res.Stream)
		}
	}
	switch {
	case rec.wantErr:
		return sltCheckError(rec, err, fail)
	case err != nil:
		return fail("unexpected error: %s", sltErrorText(err))
	case rec.kind == sltStatement:
		return nil
	}
	return sltCheckQuery(rec, res, rows, fail)
}

// exec runs the SQL on the executor, turning a panic into an error so that
// one bad record does not take the whole test binary down.
func (r *sltRunner) exec(ctx context.Context, text string, pos sql.Pos) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return r.x.Exec(ctx, text, pos)
}

// sltCheckError checks the outcome of a `statement error` or `query error`.
func sltCheckError(rec *sltRecord, err error, fail func(string, ...any) *SLTFailure) *SLTFailure {
	if err == nil {
		if rec.errRe != nil {
			return fail("expected an error matching /%s/, but the statement succeeded", rec.errRe)
		}
		return fail("expected an error, but the statement succeeded")
	}
	if rec.errRe != nil && !rec.errRe.MatchString(err.Error()) {
		return fail("error %q does not match /%s/", err.Error(), rec.errRe)
	}
	return nil
}

// sltCheckQuery compares a query's rows (read from its stream, for a push
// query) with the record's expected lines.
func sltCheckQuery(rec *sltRecord, res *Result, rows [][]types.Datum, fail func(string, ...any) *SLTFailure) *SLTFailure {
	if res.Kind != ResultRows && res.Kind != ResultStream {
		return fail("expected rows, but the statement returned %q", res.Tag)
	}
	if len(res.Columns) != len(rec.types) {
		return fail("the query returned %d columns, but the type string %q has %d", len(res.Columns), rec.types, len(rec.types))
	}
	mm, got := compareSLT(rec.expected, sltValues(res.Columns, rows), len(res.Columns), rec.sort)
	if mm == nil {
		return nil
	}
	f := fail("result mismatch: expected %s, got %d", sltPlural(mm.NExpected, mm.Unit), mm.NGot)
	f.Diff, f.Got = mm, got
	f.DashLine, f.ExpectedLines = rec.dashLine, len(rec.expected)
	for _, r := range sltValues(res.Columns, rows) {
		f.Raw = append(f.Raw, strings.Join(r, " "))
	}
	if rec.sort == sltRowSort {
		slices.Sort(f.Raw)
	}
	return f
}

// sltDrain reads a push query's stream to its end and closes it.
func sltDrain(ctx context.Context, s *Stream) (rows [][]types.Datum, err error) {
	if s == nil {
		return nil, errors.New("the push query has no stream")
	}
	defer s.Close()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	for {
		batch, err := s.Next(ctx)
		rows = append(rows, batch...)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
	}
}

// sltErrorText renders an error for a report: its message and, for errors with
// a position, the snippet that shows it.
func sltErrorText(err error) string {
	var pe sql.PosError
	if errors.As(err, &pe) {
		if snip := strings.TrimRight(pe.Snippet(), "\n"); snip != "" {
			return err.Error() + "\n" + snip
		}
	}
	return err.Error()
}

// sltEngine runs records on a real engine with a non-interactive
// session, so that push queries end once they have caught up.
type sltEngine struct {
	cfg  Config
	eng  *Engine
	sess *Session
}

// openSLTEngine opens an engine on cfg.
func openSLTEngine(ctx context.Context, cfg Config) (*sltEngine, error) {
	x := &sltEngine{cfg: cfg}
	if err := x.open(ctx); err != nil {
		return nil, err
	}
	return x, nil
}

func (x *sltEngine) open(ctx context.Context) error {
	eng, err := Open(ctx, x.cfg)
	if err != nil {
		return err
	}
	x.eng, x.sess = eng, eng.NewSession(SessionOptions{})
	return nil
}

// Exec parses every statement of text before running any, then runs them
// in order. The results of all but the last are discarded.
func (x *sltEngine) Exec(ctx context.Context, text string, pos sql.Pos) (*Result, error) {
	if x.sess == nil {
		return nil, errors.New("no engine: the last restart failed")
	}
	stmts, err := sltParseScript(text, pos)
	if err != nil {
		return nil, err
	}
	var res *Result
	for _, st := range stmts {
		if res != nil && res.Stream != nil {
			res.Stream.Close()
		}
		if res, err = x.sess.Execute(ctx, st); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Restart closes the engine and opens a new one on the same directory.
func (x *sltEngine) Restart(ctx context.Context) error {
	err := x.Close()
	if err != nil {
		return fmt.Errorf("closing: %w", err)
	}
	if err := x.open(ctx); err != nil {
		return fmt.Errorf("reopening: %w", err)
	}
	return nil
}

// Close closes the engine; it is idempotent.
func (x *sltEngine) Close() error {
	if x.eng == nil {
		return nil
	}
	err := x.eng.Close()
	x.eng, x.sess = nil, nil
	return err
}

// sltParseScript splits text, which starts at pos in its file, into
// statements and parses each one, so that errors name lines of the file.
// Text after the last semicolon is a statement too unless it is blank.
func sltParseScript(text string, pos sql.Pos) ([]sql.Stmt, error) {
	pieces, rest := sql.Split(text)
	var stmts []sql.Stmt
	for _, p := range pieces {
		st, err := sql.ParseOne(p.Text, sltShiftPos(pos, p.Start))
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, st)
	}
	if strings.TrimSpace(rest) != "" {
		off := len(text) - len(rest)
		st, err := sql.ParseOne(rest, sltShiftPos(pos, sltPosAt(text, off)))
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

// sltPosAt returns the position of byte offset off in text.
func sltPosAt(text string, off int) sql.Pos {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := off - strings.LastIndexByte(before, '\n')
	return sql.Pos{Offset: off, Line: line, Col: col}
}

// sltShiftPos turns rel, a position in a text that starts at base, into a
// position in the text's file.
func sltShiftPos(base, rel sql.Pos) sql.Pos {
	if rel.Line <= 1 {
		return sql.Pos{Offset: base.Offset + rel.Offset, Line: base.Line, Col: base.Col + rel.Col - 1}
	}
	return sql.Pos{Offset: base.Offset + rel.Offset, Line: base.Line + rel.Line - 1, Col: rel.Col}
}
