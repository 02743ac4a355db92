package slt

import (
	"context"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// executor runs what the records of a file ask of an engine. Run uses
// an engine; tests use a fake.
type executor interface {
	// Exec parses text, the SQL of a record starting at pos in its file,
	// runs its statements in order and returns the last one's result.
	Exec(ctx context.Context, text string, pos sql.Pos) (*engine.Result, error)
	// Restart closes the engine and opens it again on the same data, with a
	// new session.
	Restart(ctx context.Context) error
	// Close closes the engine.
	Close() error
}

// engineExecutor runs records on a real engine with a non-interactive
// session, so that push queries end once they have caught up.
type engineExecutor struct {
	cfg  engine.Config
	eng  *engine.Engine
	sess *engine.Session
}

// openEngine opens an engine on cfg.
func openEngine(ctx context.Context, cfg engine.Config) (*engineExecutor, error) {
	x := &engineExecutor{cfg: cfg}
	if err := x.open(ctx); err != nil {
		return nil, err
	}
	return x, nil
}

func (x *engineExecutor) open(ctx context.Context) error {
	eng, err := engine.Open(ctx, x.cfg)
	if err != nil {
		return err
	}
	x.eng, x.sess = eng, eng.NewSession(engine.SessionOptions{})
	return nil
}

// Exec parses every statement of text before running any, then runs them
// in order. The results of all but the last are discarded.
func (x *engineExecutor) Exec(ctx context.Context, text string, pos sql.Pos) (*engine.Result, error) {
	if x.sess == nil {
		return nil, errors.New("no engine: the last restart failed")
	}
	stmts, err := parseScript(text, pos)
	if err != nil {
		return nil, err
	}
	var res *engine.Result
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
func (x *engineExecutor) Restart(ctx context.Context) error {
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
func (x *engineExecutor) Close() error {
	if x.eng == nil {
		return nil
	}
	err := x.eng.Close()
	x.eng, x.sess = nil, nil
	return err
}

// parseScript splits text, which starts at pos in its file, into
// statements and parses each one, so that errors name lines of the file.
// Text after the last semicolon is a statement too unless it is blank.
func parseScript(text string, pos sql.Pos) ([]sql.Stmt, error) {
	var stmts []sql.Stmt
	for _, p := range sql.Statements(text) {
		st, err := sql.ParseOne(p.Text, shiftPos(pos, p.Start))
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

// shiftPos turns rel, a position in a text that starts at base, into a
// position in the text's file.
func shiftPos(base, rel sql.Pos) sql.Pos {
	if rel.Line <= 1 {
		return sql.Pos{Offset: base.Offset + rel.Offset, Line: base.Line, Col: base.Col + rel.Col - 1}
	}
	return sql.Pos{Offset: base.Offset + rel.Offset, Line: base.Line + rel.Line - 1, Col: rel.Col}
}
