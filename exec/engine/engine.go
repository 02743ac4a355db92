package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/cluster"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/builtin"
	"github.com/eddysql/eddy/exec/connector/fileroot"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/mview"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger"
	"github.com/eddysql/eddy/storage/mem"
)

// Config configures an Engine.
type Config struct {
	// DataDir is where the catalog, stream logs and state are kept. Empty
	// means in memory (for tests): nothing survives Close.
	DataDir string
	// FileRoot is the directory file connectors are confined to
	// (exec/connector/fileroot): a relative path resolves against it, an
	// absolute one must be inside it, and no path may reach into DataDir.
	// Empty means the working directory.
	FileRoot string
	// Parallelism is the default parallelism of new queries (0: 1).
	Parallelism int
	// Alloc allocates Arrow buffers (nil: the Go allocator).
	Alloc memory.Allocator
	// Stdout receives the output of `print` sinks (nil: discarded).
	Stdout io.Writer
	// BufferBytes is each query's buffer budget: the most bytes of batches
	// queued between its stages (0: exec.DefaultBufferBytes). A slow sink
	// fills it and then holds its sources back.
	BufferBytes int64
	// CheckpointInterval is how often the queries of materialized views
	// whose dataflow can resume are checkpointed, so that a restart
	// resumes them instead of replaying their inputs (0: never).
	CheckpointInterval time.Duration
	// WatermarkAlignment is the default drift of the watermark alignment
	// of a query's sources (SET watermark_alignment; 0: none): a source
	// whose watermark runs more than this ahead of the lowest among the
	// query's sources with data to read waits for it, which bounds what
	// joins and windows hold for the fast side.
	WatermarkAlignment time.Duration
	// StateMemoryLimit bounds the memory the state of all queries may take
	// together (operators' state and views' rows, as they estimate it;
	// 0: no limit). A query whose state growth would pass it fails alone,
	// with an error naming the operator and its state size.
	StateMemoryLimit int64
	// OnProgress, if set, receives a report every ProgressEvery (0: a
	// second) while Open restores checkpoints and catches up on the input
	// ingested while the engine was down. It is called from another
	// goroutine, never after Open returns.
	OnProgress    func(Progress)
	ProgressEvery time.Duration
	// PolicyInterval is how often the rates of continuous queries are
	// sampled for EXPLAIN ANALYZE, SHOW QUERIES and QueryRates, unless
	// their session SET policy_interval (0: DefaultPolicyInterval).
	PolicyInterval time.Duration
	// AutoscaleMax bounds the parallelism the DS2 controller of a query
	// created with SET autoscale = 'ds2' gives it (0: the number of CPUs).
	AutoscaleMax int
	// Autoscale is the autoscaling of continuous queries whose session
	// did not SET autoscale: "ds2" runs a DS2 controller for each; ""
	// none.
	Autoscale string
	// Cluster, if set, makes the engine a member of a cluster on Kafka
	// (cluster.go): its catalog is the cluster's command topic and its
	// materialized views run on the cluster. DataDir must be empty: a
	// member keeps nothing on its disk.
	Cluster *cluster.Config
}

// SessionOptions configure a Session.
type SessionOptions struct {
	// Interactive sessions run push queries until LIMIT or cancellation;
	// non-interactive ones (scripts, slt, piped input) end a push query
	// over unbounded inputs once it has caught up with every row ingested
	// when it started, since nothing else can arrive while the script waits.
	Interactive bool
}

// Engine is one eddy instance: storage, catalog and the continuous queries
// that run until their objects are dropped.
type Engine struct {
	cfg   Config
	root  fileroot.Root // where file connectors may read and write
	conns *connector.Registry
	db    storage.DB
	cat   *catalog.Catalog
	alloc memory.Allocator

	ctx    context.Context // the lifetime of continuous queries
	cancel context.CancelFunc

	state *dataflow.StateBudget // shared by every query's job

	mu      sync.Mutex
	queries map[string]*runningQuery // continuous queries by object name (lower case)
	// detached are dropped views whose queries run on for the queries
	// that read them in place of their own sub-plans, by object ID
	// (share.go).
	detached map[uint64]*runningQuery
	broken   map[string]error // continuous queries that could not resume, with why
	// mustRebuild names the queries reading a derived stream rebuilt from
	// its inputs: they are rebuilt too when they start next.
	mustRebuild map[string]bool
	pushes      map[*dataflow.Job]struct{} // running push queries

	// moves is held by a rescale (rescale.go), one at a time; FLUSH and
	// DROP hold it shared, so that neither sees a query's job replaced
	// under it, and Close waits for a rescale in progress.
	moves sync.RWMutex

	// writes serializes the statements that read a table and write what
	// they read back to its log (UPDATE, DELETE), so that none deletes a
	// row another has deleted since it read.
	writes sync.Mutex

	flushSeq atomic.Uint64
	notices  noticeLog
	late     lateLedger
	statsObs *statsObserver // keeps observed statistics current (observe_stats.go)
	recovery recovery       // queries recovering from a failure (recover.go)
	startup  startupWork    // what Open is doing, for its progress reports
	scale    autoscalers    // the DS2 controllers of queries (autoscale.go)
	// switchers watch the adaptive joins of queries (adaptive_switch.go).
	switchers joinSwitchers
	// member and cmds are the engine's cluster membership and the
	// cluster's command log (nil outside cluster mode; cluster.go).
	member *cluster.Member
	cmds   *cluster.CommandLog

	// afterFlushCollect, if set, runs in FLUSH once it has listed the
	// queries to flush (tests).
	afterFlushCollect func()
}

// runningQuery is the continuous query behind a materialized view, a sink,
// a derived stream or a continuous insert.
type runningQuery struct {
	obj  *catalog.Object
	job  *dataflow.Job
	mv   *mview.View // views only
	plan physical.Node
	// bound is the query's bound plan before it shared any view's rows
	// (share.go): what later queries match their sub-plans against.
	bound plan.Node
	graph dataflow.GraphSpec
	state *queryState // a view's checkpoints, if it is checkpointed
	// background says the view answered from its restored rows while its
	// other operators were still restoring (background.go).
	background bool
	// cluster is the member's share of a cluster query (cluster.go),
	// whose job is a view's replica; a cluster's sink runs only as
	// tasks, and its job is nil.
	cluster *cluster.Query
}

// stop stops q's job and closes its state store (what the last checkpoint
// did not commit is discarded).
func (q *runningQuery) stop() {
	if q.cluster != nil {
		q.cluster.Stop()
		return
	}
	q.job.Stop()
	if q.state != nil {
		q.state.store.Close()
	}
}

// Open starts an engine on cfg.DataDir, restoring every object and resuming
// every continuous query.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Parallelism < 1 {
		// Every stage runs at the number of CPUs unless told otherwise.
		cfg.Parallelism = runtime.NumCPU()
	}
	if cfg.Alloc == nil {
		cfg.Alloc = memory.DefaultAllocator
	}
	var dataDir string
	if cfg.Cluster != nil && cfg.DataDir != "" {
		return nil, errors.New("engine: a cluster member keeps nothing on its disk: it takes no data directory")
	}
	if cfg.DataDir != "" {
		dir, err := filepath.Abs(cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("engine: data directory: %w", err)
		}
		dataDir = dir
	}
	root, err := fileroot.New(cfg.FileRoot, dataDir)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	var db storage.DB
	if dataDir == "" {
		db = mem.New()
	} else {
		bdb, err := badger.Open(dataDir, badger.Options{})
		if err != nil {
			return nil, err
		}
		db = bdb
	}
	return openOn(ctx, cfg, root, db)
}

// openOn starts an engine on db, which it closes if it fails; cfg has its
// defaults filled in, and root confines its file connectors.
func openOn(ctx context.Context, cfg Config, root fileroot.Root, db storage.DB) (*Engine, error) {
	e := &Engine{cfg: cfg, root: root, conns: builtin.New(), db: db, alloc: cfg.Alloc,
		state:   dataflow.NewStateBudget(cfg.StateMemoryLimit),
		queries: map[string]*runningQuery{}, detached: map[uint64]*runningQuery{}, broken: map[string]error{}, mustRebuild: map[string]bool{}, pushes: map[*dataflow.Job]struct{}{}}
	e.conns.AddInternalSink(insertSink{e})
	// A bounded file's rows are estimated from its size under the root.
	cat, err := catalog.Open(db.KV(), func(o *catalog.Object) catalog.SourceTraits { return e.conns.TraitsIn(o, e.connEnv()) })
	if err != nil {
		db.Close()
		return nil, inDataDir(err, cfg.DataDir)
	}
	e.cat = cat
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.scale.ctx, e.scale.cancel = context.WithCancel(e.ctx)
	e.scale.byName = map[string]*autoscaler{}
	e.startup.started = time.Now()
	if cfg.OnProgress != nil {
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.reportStartup(done)
		}()
		defer func() {
			close(done)
			wg.Wait()
		}()
	}
	e.startup.resuming.Store(true)
	e.resume()
	e.startup.resuming.Store(false)
	// Until checkpoints exist, resumed views rebuild their state from their
	// inputs; wait until they have caught up, so a restarted engine answers
	// pull queries as it did before.
	if err := e.waitCaughtUp(ctx); err != nil {
		e.Close()
		return nil, err
	}
	e.noteResumed()
	if cfg.Cluster != nil {
		if err := e.joinCluster(ctx); err != nil {
			e.halt()
			return nil, err
		}
	}
	if err := e.corruptQuery(); err != nil {
		e.Close()
		return nil, inDataDir(err, cfg.DataDir)
	}
	e.startStatsObserver()
	return e, nil
}

// splitAlignment is the drift within which the instances of a parallel
// scan whose splits share their event time (a nexmark generator's) keep
// their watermarks, unless the query aligns all its sources or none
// (SET watermark_alignment): a split read faster than the others would
// otherwise run ahead, and a join or window downstream hold its rows
// until the slowest split caught up — at p2, q7's join held twice the
// bids of p1. The splits are one stream dealt out: what combines them by
// event time waits for the slowest anyway.
const splitAlignment = time.Second

// jobOptions returns the options of a job named name whose warnings are
// labelled label (empty: unlabelled).
func (e *Engine) jobOptions(name, label string) dataflow.JobOptions {
	return dataflow.JobOptions{Name: name, Alloc: e.alloc, BufferBytes: e.cfg.BufferBytes,
		OnWarning: e.warner(label), StateBudget: e.state, WatermarkAlignment: e.cfg.WatermarkAlignment,
		SplitAlignment: splitAlignment}
}

// setAlignment applies a query's SET watermark_alignment to its job's
// options: a drift aligns all its sources, 0 none (not even the splits of
// one scan).
func setAlignment(opts *dataflow.JobOptions, d time.Duration) {
	opts.WatermarkAlignment = d
	if d == 0 {
		opts.SplitAlignment = 0
	}
}

// corruptQuery returns the error of a resumed query that failed on
// damaged stored data while catching up: a damaged data directory keeps
// the engine from opening, as it does when storage finds the damage.
func (e *Engine) corruptQuery() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, obj := range e.cat.InCreationOrder() {
		q, ok := e.queries[lower(obj.Name)]
		if !ok || q.job == nil {
			continue
		}
		// (A checkpoint damaged in the background recovers: recover.go.)
		if state, err := q.job.State(); state == dataflow.JobFailed && errors.Is(err, storage.ErrCorrupt) && !backgroundRestoreFailed(q, err) {
			return fmt.Errorf("%s %s failed: %w", obj.Kind, obj.Name, err)
		}
	}
	return nil
}

// inDataDir sets the path of a *storage.CorruptionError found in an item
// (which names no file) to the data directory.
func inDataDir(err error, dir string) error {
	var ce *storage.CorruptionError
	if dir == "" || !errors.As(err, &ce) || ce.Path != "" {
		return err
	}
	ce.Path = dir
	return err
}

// waitCaughtUp returns once every view, derived stream and continuous
// insert reflects every row ingested so far, and every sink that writes
// out of eddy (file, print, blackhole) has opened its output or failed to
// (so that SHOW lists a sink that cannot open as failed from the start).
// Such sinks catch up on their own: no query reads them, and a sink held
// up by what it writes to (a FIFO whose reader is slow) must not hold up
// the start of eddy.
func (e *Engine) waitCaughtUp(ctx context.Context) error {
	if _, err := e.flushLevelsOf(ctx, e.flushLevels(func(q *runningQuery) bool { return !e.writesOut(q.obj) && e.catchesUpAtOpen(q) }), nil); err != nil {
		return err
	}
	for _, level := range e.flushLevels(func(q *runningQuery) bool { return e.writesOut(q.obj) }) {
		for _, j := range level.jobs {
			if err := j.WaitOpened(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// writesOut reports whether obj is a sink writing out of eddy, through a
// sink connector, rather than into a stream.
func (e *Engine) writesOut(obj *catalog.Object) bool {
	_, insert := e.insertTarget(obj)
	return obj.Kind == catalog.Sink && !insert
}

// connEnv is what connectors need from the engine.
func (e *Engine) connEnv() connector.Env {
	return connector.Env{Root: e.root, Stdout: e.cfg.Stdout}
}

// resume restarts every continuous query — views, sinks, derived streams
// and continuous inserts — in creation order, so that a query starts after
// the objects it reads. One that cannot resume does not keep the engine
// (and every other object) from opening: it is reported and stays visible
// as failed until it is dropped.
func (e *Engine) resume() {
	for _, obj := range e.cat.InCreationOrder() {
		if obj.Query == "" {
			continue
		}
		if err := e.resumeQuery(obj); err != nil {
			e.mu.Lock()
			e.broken[lower(obj.Name)] = err
			e.mu.Unlock()
			e.notices.add(fmt.Sprintf("%s %s could not resume: %v", obj.Kind, obj.Name, err))
		}
	}
}

// resumeQuery plans and starts a stored continuous query, turning a panic
// (a bug) into an error for that query alone.
func (e *Engine) resumeQuery(obj *catalog.Object) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	stmt, err := sql.ParseOne(obj.Query, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return err
	}
	sel, ok := stmt.(*sql.Select)
	if !ok {
		return fmt.Errorf("its stored query is not a SELECT")
	}
	ps, interval := e.storedSettings(obj)
	cq, err := e.planContinuous(obj, sel.Query, stmt.Source(), sql.Pos{Line: 1, Col: 1}, ps)
	if err != nil {
		return err
	}
	err = e.startQuery(obj, cq, true, interval)
	var ce *checkpointError
	if !errors.As(err, &ce) || !ce.damaged || obj.Kind != catalog.View {
		return err
	}
	// A view's damaged checkpoint: fall back on the one before it. (Only
	// a view's: a sink or a stream writer has published the output of the
	// damaged checkpoint, which a rerun from an earlier one would publish
	// again.)
	epoch, rerr := e.rollbackQueryState(obj)
	if rerr != nil {
		return err
	}
	e.notices.add(fmt.Sprintf("%s %s falls back on its previous checkpoint %d: %s", obj.Kind, obj.Name, epoch, ce.cause()))
	return e.startQuery(obj, cq, true, interval)
}

// Close stops every query and closes storage.
func (e *Engine) Close() error {
	e.stopStatsObserver()
	e.stopAutoscalers()
	// A last checkpoint, so that a clean restart resumes where the
	// engine stopped (and file sinks publish what they wrote), once a
	// rescale in progress is done.
	e.moves.RLock()
	// A view still restoring in the background has not changed since the
	// checkpoint it restores, which the next start resumes (background.go).
	ctx, cancel := context.WithTimeout(e.ctx, closeCheckpointTimeout)
	e.checkpointQueries(ctx, func(q *runningQuery) bool { return !q.restoring() })
	cancel()
	e.moves.RUnlock()
	return e.halt()
}

// halt stops every query and closes the data directory, with no last
// checkpoint: what the last checkpoints did not commit is lost, as in a
// crash (tests use it as one).
func (e *Engine) halt() error {
	if e.cmds != nil {
		e.cmds.Close() // no command starts a query from here on
	}
	e.stopStatsObserver()
	e.stopAutoscalers()
	e.cancel()
	e.recovery.wg.Wait()
	// A rescale in progress ends (it stops at e.ctx) before the queries
	// are collected, so that its new job is among them.
	e.moves.Lock()
	e.moves.Unlock()
	e.mu.Lock()
	var jobs []*dataflow.Job
	var queries []*runningQuery
	for _, q := range e.queries {
		queries = append(queries, q)
	}
	for j := range e.pushes {
		jobs = append(jobs, j)
	}
	detached := slices.Collect(maps.Values(e.detached))
	e.mu.Unlock()
	for _, q := range queries {
		q.stop()
	}
	// A dropped view that ran on for its readers goes for good: they
	// plan without it when the engine opens again (share.go).
	for _, q := range detached {
		q.stop()
		if err := e.dropQueryState(q.obj); err != nil {
			e.notices.add(err.Error())
		}
	}
	for _, j := range jobs {
		j.Stop()
	}
	if e.member != nil {
		e.member.Close()
	}
	return e.db.Close()
}

// closeCheckpointTimeout bounds the last checkpoint Close takes: a query
// that cannot take one in time resumes from its previous one.
const closeCheckpointTimeout = 10 * time.Second

// Catalog returns the engine's catalog.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// noticeLog collects the notices of running queries (warnings, resumes,
// failures and restarts) for every session: each notice goes to each
// session open when it is added, with the next statement that session
// runs. A session reads the log from its own position (since), so one
// session's statements do not take the notices away from another's.
// The first session opened also gets what was added before it (the
// queries resumed at startup); later ones start from their opening.
type noticeLog struct {
	mu     sync.Mutex
	msgs   []string // the latest notices, at most maxNotices
	first  int      // the sequence number of msgs[0]
	opened bool     // a session was opened
}

// maxNotices bounds the notices kept: a session that runs no statement
// for a long while gets the latest ones (a source reports only its first
// few bad rows anyway).
const maxNotices = 100

func (l *noticeLog) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msg)
	if n := len(l.msgs) - maxNotices; n > 0 {
		l.msgs = append(l.msgs[:0], l.msgs[n:]...)
		l.first += n
	}
}

// open returns the position a new session reads the log from.
func (l *noticeLog) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.opened {
		l.opened = true
		return l.first
	}
	return l.first + len(l.msgs)
}

// since returns the notices added since *pos and moves *pos past them.
func (l *noticeLog) since(pos *int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	end := l.first + len(l.msgs)
	start := max(*pos, l.first)
	*pos = end
	if start >= end {
		return nil
	}
	return slices.Clone(l.msgs[start-l.first:])
}

// warner returns the warning callback for a query's jobs.
func (e *Engine) warner(query string) func(string) {
	return func(msg string) {
		if query != "" {
			msg = query + ": " + msg
		}
		e.notices.add(msg)
	}
}

func lower(s string) string { return strings.ToLower(s) }
