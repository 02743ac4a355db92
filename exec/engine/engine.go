package engine

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/sql"
)

// Config configures an Engine.
type Config struct {
	// DataDir is where the catalog, stream logs and state are kept. Empty
	// means in memory (for tests): nothing survives Close.
	DataDir string
	// BaseDir resolves relative connector paths; empty means the working
	// directory.
	BaseDir string
	// Parallelism is the default parallelism of new queries (0: 1).
	Parallelism int
	// Alloc allocates Arrow buffers (nil: the Go allocator).
	Alloc memory.Allocator
	// Stdout receives the output of `print` sinks (nil: discarded).
	Stdout io.Writer
}

// SessionOptions configure a Session.
type SessionOptions struct {
	// Interactive sessions run push queries until LIMIT or cancellation;
	// non-interactive ones (scripts, slt, piped input) end a push query
	// over unbounded inputs once it has caught up with every row ingested
	// when it started, since nothing else can arrive while the script waits.
	Interactive bool
}

// Engine is one eddy instance.
type Engine struct {
	cfg Config
}

// Open starts an engine on cfg.DataDir, restoring every object and resuming
// every continuous query.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	return &Engine{cfg: cfg}, nil
}

// Close stops every query and closes storage.
func (e *Engine) Close() error { return nil }

// Session is one user's connection: settings and statement execution.
type Session struct {
	eng  *Engine
	opts SessionOptions
}

// NewSession returns a session.
func (e *Engine) NewSession(opts SessionOptions) *Session {
	return &Session{eng: e, opts: opts}
}

// Execute runs one parsed statement.
func (s *Session) Execute(ctx context.Context, stmt sql.Stmt) (*Result, error) {
	return nil, errors.New("engine: under construction")
}
