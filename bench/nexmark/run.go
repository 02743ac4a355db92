package nexmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// Progress is how far a running query has got.
type Progress struct {
	// Rows is the number of rows its sources have read so far, summed over
	// its continuous queries.
	Rows int64 `json:"rows"`
	// Elapsed is the time since the query's first statement.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// progressInterval is how often a running query reports its progress:
// often enough for a live display, and rarely enough that the poll (one
// SHOW QUERIES) costs nothing measurable.
const progressInterval = 500 * time.Millisecond

// RunOne runs query q to completion in this process and measures it: it
// opens an engine (in memory, or on a data directory in a scratch
// directory when c says so, checkpointing every c.CheckpointInterval),
// creates the streams (StreamDDL; under GenerateAll with the whole
// generator shared among the streams q scans, streamsFor), runs q's
// statements and then FLUSH, and times the span from just before q's
// first statement to just after FLUSH returns. onProgress (may be nil) is called from another goroutine
// while the query runs, and never after RunOne returns. The checkpoints
// committed from q's first statement to the end of FLUSH (which takes one
// of its own) are counted from SHOW CHECKPOINTS. The CPU time and peak
// RSS are the whole process's, so they are q's own only when nothing else
// runs in the process.
func RunOne(ctx context.Context, c Config, q Query, onProgress func(Progress)) (Figures, error) {
	if err := c.Validate(); err != nil {
		return Figures{}, err
	}
	stmts, err := parseQuery(q)
	if err != nil {
		return Figures{}, err
	}
	ddls, err := streamsFor(ctx, c, stmts)
	if err != nil {
		return Figures{}, queryError(q, err)
	}
	scratch, err := os.MkdirTemp("", "eddy-nexmark-"+q.Name+"-")
	if err != nil {
		return Figures{}, fmt.Errorf("scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	if err := copyDataFiles(c.Dir, scratch); err != nil {
		return Figures{}, err
	}
	cfg := engine.Config{FileRoot: scratch, Parallelism: c.parallelism(), CheckpointInterval: c.CheckpointInterval,
		WatermarkAlignment: c.WatermarkAlignment}
	if c.onDisk() {
		cfg.DataDir = filepath.Join(scratch, "data")
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		return Figures{}, fmt.Errorf("opening the engine: %w", err)
	}
	defer eng.Close()
	sess := eng.NewSession(engine.SessionOptions{})
	for _, ddl := range ddls {
		if err := execText(ctx, sess, ddl); err != nil {
			return Figures{}, fmt.Errorf("creating the streams: %w", err)
		}
	}
	flush, err := sql.ParseOne("FLUSH;", sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return Figures{}, fmt.Errorf("parsing FLUSH: %w", err)
	}

	start := time.Now()
	stop := pollProgress(eng, start, onProgress)
	defer stop()
	ckpts, stopCkpts := (*checkpointLog)(nil), func() {}
	if c.CheckpointInterval > 0 {
		ckpts, stopCkpts = watchCheckpoints(eng)
		defer stopCkpts()
	}
	cpu0, sys0, _, err := usage()
	if err != nil {
		return Figures{}, err
	}
	for _, st := range stmts {
		if _, err := sess.Execute(ctx, st); err != nil {
			return Figures{}, queryError(q, err)
		}
	}
	if err := flushToEnd(ctx, sess, flush, c.Rate > 0); err != nil {
		return Figures{}, queryError(q, err)
	}
	wall := time.Since(start)
	cpu1, sys1, rss, err := usage()
	if err != nil {
		return Figures{}, err
	}
	stop()
	stopCkpts()

	if err := checkQueries(ctx, sess); err != nil {
		return Figures{}, queryError(q, err)
	}
	m := Measurement{Events: c.Events, Wall: wall, CPU: cpu1 - cpu0, Sys: sys1 - sys0, PeakRSS: rss}
	if ckpts != nil {
		if m.Checkpoints, m.CheckpointBytes, m.CheckpointDurations, m.CheckpointSyncMax, m.CheckpointsFailed, err = ckpts.figures(); err != nil {
			return Figures{}, fmt.Errorf("reading the checkpoints: %w", err)
		}
	}
	f := Compute(q.Name, m)
	f.Generate = c.generate()
	return f, nil
}

// queryError names the query (its file) in err.
func queryError(q Query, err error) error {
	if q.File == "" {
		return fmt.Errorf("%s: %w", q.Name, err)
	}
	return fmt.Errorf("%s: %w", filepath.Base(q.File), err)
}

// parseQuery parses q's statements. Statements after the last ';' count
// too, as in scripts.
func parseQuery(q Query) ([]sql.Stmt, error) {
	pieces := sql.Statements(q.Text)
	if len(pieces) == 0 {
		return nil, queryError(q, errors.New("no statements"))
	}
	stmts := make([]sql.Stmt, 0, len(pieces))
	for _, p := range pieces {
		st, err := sql.ParseOne(p.Text, p.Start)
		if err != nil {
			return nil, queryError(q, err)
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

// execText parses and runs one statement.
func execText(ctx context.Context, sess *engine.Session, text string) error {
	st, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return err
	}
	_, err = sess.Execute(ctx, st)
	return err
}

// copyDataFiles copies the regular files of the query directory dir (the
// built-in queries when dir is "") that are neither queries nor
// documentation (q13's side_input.csv) into scratch.
func copyDataFiles(dir, scratch string) error {
	fsys, _ := queryFS(dir)
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fmt.Errorf("reading the query directory: %w", err)
	}
	for _, e := range entries {
		ext := strings.ToLower(path.Ext(e.Name()))
		if !e.Type().IsRegular() || ext == ".sql" || ext == ".md" {
			continue
		}
		if err := copyFile(fsys, e.Name(), filepath.Join(scratch, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies the file src of fsys to dst.
func copyFile(fsys fs.FS, src, dst string) error {
	in, err := fsys.Open(src)
	if err != nil {
		return fmt.Errorf("copying a data file: %w", err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copying a data file: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return nil
}
