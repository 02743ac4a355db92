package slt

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
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// Config configures Run.
type Config struct {
	// Engine configures the engine a file runs on. An empty DataDir gets a
	// fresh temporary directory, removed when the file is done; an empty
	// FileRoot is the directory of the .slt file, so fixtures beside it are
	// found by relative paths (and file connectors stay in it).
	Engine engine.Config
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

// Run runs the sqllogictest file at path on a new engine and reports
// every record's outcome. A record that fails is a failure in the report,
// not an error; the error is for files that cannot run at all (unreadable,
// malformed, an engine that does not open) and for a cancelled ctx.
func Run(ctx context.Context, path string, cfg Config) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	recs, err := parse(path, f)
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
	x, err := openEngine(ctx, ecfg)
	if err != nil {
		return nil, fmt.Errorf("%s: opening the engine: %w", path, err)
	}
	rep, runErr := runRecords(ctx, path, recs, x, cfg)
	if err := x.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("%s: closing the engine: %w", path, err)
	}
	if cfg.Rewrite && runErr == nil && rep != nil {
		runErr = rewrite(path, rep.Failures)
	}
	return rep, runErr
}

// rewrite replaces the result sections of the failed query records
// with their actual results.
func rewrite(path string, failures []Failure) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	fs := append([]Failure(nil), failures...)
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

// runner runs the records of one file.
type runner struct {
	file string
	x    executor
	cfg  Config
	rep  *Report
}

// runRecords runs parsed records on x. It stops early at halt, on
// FailFast, on a failed restart and when ctx is cancelled.
func runRecords(ctx context.Context, file string, recs []record, x executor, cfg Config) (*Report, error) {
	start := time.Now()
	r := &runner{file: file, x: x, cfg: cfg, rep: &Report{File: file}}
	defer func() { r.rep.Elapsed = time.Since(start) }()
	for i := range recs {
		rec := &recs[i]
		if err := ctx.Err(); err != nil {
			return r.rep, err
		}
		if rec.kind == haltRecord {
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
		if r.cfg.FailFast || rec.kind == restartRecord {
			// Without an engine nothing after a failed restart can run.
			return r.rep, nil
		}
	}
	return r.rep, nil
}

// progress writes a verbose progress line.
func (r *runner) progress(format string, args ...any) {
	if r.cfg.Verbose && r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, format+"\n", args...)
	}
}

// run runs one record and returns its failure, or nil.
func (r *runner) run(ctx context.Context, rec *record) *Failure {
	if r.cfg.RecordTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.cfg.RecordTimeout)
		defer cancel()
	}
	fail := func(format string, args ...any) *Failure {
		return &Failure{File: r.file, Line: rec.line, SQL: rec.sql, Reason: fmt.Sprintf(format, args...)}
	}
	switch rec.kind {
	case restartRecord:
		if err := r.x.Restart(ctx); err != nil {
			return fail("restart failed: %s", errorText(err))
		}
		return nil
	case insertRecord, watermarkRecord, checkpointRecord:
		name := map[recordKind]string{insertRecord: "insert", watermarkRecord: "watermark", checkpointRecord: "checkpoint"}[rec.kind]
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
		if res.Kind == engine.ResultStream {
			// A push query's errors can come while it streams.
			rows, err = drain(ctx, res.Stream)
		}
	}
	switch {
	case rec.wantErr:
		return checkError(rec, err, fail)
	case err != nil:
		return fail("unexpected error: %s", errorText(err))
	case rec.kind == statementRecord:
		return nil
	}
	return checkQuery(rec, res, rows, fail)
}

// exec runs the SQL on the executor, turning a panic into an error so that
// one bad record does not take the whole test binary down.
func (r *runner) exec(ctx context.Context, text string, pos sql.Pos) (res *engine.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return r.x.Exec(ctx, text, pos)
}

// checkError checks the outcome of a `statement error` or `query error`.
func checkError(rec *record, err error, fail func(string, ...any) *Failure) *Failure {
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

// checkQuery compares a query's rows (read from its stream, for a push
// query) with the record's expected lines.
func checkQuery(rec *record, res *engine.Result, rows [][]types.Datum, fail func(string, ...any) *Failure) *Failure {
	if res.Kind != engine.ResultRows && res.Kind != engine.ResultStream {
		return fail("expected rows, but the statement returned %q", res.Tag)
	}
	if len(res.Columns) != len(rec.types) {
		return fail("the query returned %d columns, but the type string %q has %d", len(res.Columns), rec.types, len(rec.types))
	}
	vals := values(res.Columns, rows)
	mm, got := compare(rec.expected, vals, len(res.Columns), rec.sort)
	if mm == nil {
		return nil
	}
	f := fail("result mismatch: expected %s, got %d", plural(mm.NExpected, mm.Unit), mm.NGot)
	f.Diff, f.Got = mm, got
	f.DashLine, f.ExpectedLines = rec.dashLine, len(rec.expected)
	for _, r := range vals {
		f.Raw = append(f.Raw, strings.Join(r, " "))
	}
	if rec.sort == rowSort {
		slices.Sort(f.Raw)
	}
	return f
}

// drain reads a push query's stream to its end and closes it.
func drain(ctx context.Context, s *engine.Stream) (rows [][]types.Datum, err error) {
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

// errorText renders an error for a report: its message and, for errors with
// a position, the snippet that shows it.
func errorText(err error) string {
	var pe sql.PosError
	if errors.As(err, &pe) {
		if snip := strings.TrimRight(pe.Snippet(), "\n"); snip != "" {
			return err.Error() + "\n" + snip
		}
	}
	return err.Error()
}
