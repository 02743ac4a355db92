package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// noCgoHelp says why a binary built without cgo has no DuckDB and what
// to install. Go turns cgo off by itself when it finds no C compiler.
const noCgoHelp = "DuckDB needs cgo, and this binary was built without it: install a C and C++ compiler " +
	"(Debian: apt-get install gcc g++) and build with CGO_ENABLED=1"

// Config is one benchmark run.
type Config struct {
	// Rows is the number of bids to generate.
	Rows int
	// Runs is how many times each query runs on each engine; the table
	// reports the median.
	Runs int
	// Parallelism is eddy's --parallelism and DuckDB's threads (0: each
	// engine's default, which is one per CPU for both).
	Parallelism int
	// Seed seeds the data generator.
	Seed uint64
	// Queries are the queries to run.
	Queries []Query
	// Dir is where the data set is generated ("": a temporary directory,
	// removed at the end).
	Dir string
	// EddyBin is a prebuilt eddy binary ("": build one from the
	// repository into a temporary directory).
	EddyBin string
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Result is one query's measurements on both engines, in run order.
type Result struct {
	Query        Query
	Eddy, DuckDB []Measurement
}

// Report is what a benchmark run measured.
type Report struct {
	Config Config
	// DuckDBThreads is the threads setting DuckDB ran with.
	DuckDBThreads int
	// Startup is eddy's runs of the DDL alone (Eddy.Startup), a part of
	// every eddy measurement.
	Startup []Measurement
	Results []Result
}

// Run generates the data set, builds eddy unless cfg names a binary, and
// runs every query cfg.Runs times on each engine, DuckDB then eddy for one
// query after the other within a round, so that a slow stretch of a noisy
// machine hits both engines. It fails as soon as the two engines' checks
// of a query differ.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Rows < 1 || cfg.Runs < 1 {
		return nil, fmt.Errorf("rows and runs must be positive, got %d and %d", cfg.Rows, cfg.Runs)
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	tmp, err := os.MkdirTemp("", "peers-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if cfg.EddyBin == "" {
		root, err := FindRoot()
		if err != nil {
			return nil, err
		}
		cfg.EddyBin = filepath.Join(tmp, "eddy")
		logf("building eddy from %s", root)
		if err := BuildEddy(ctx, root, cfg.EddyBin); err != nil {
			return nil, err
		}
	}
	dir := cfg.Dir
	if dir == "" {
		dir = filepath.Join(tmp, "data")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the data directory: %w", err)
	}
	logf("generating %d bids in %s", cfg.Rows, dir)
	ds, err := Generate(dir, cfg.Rows, cfg.Seed)
	if err != nil {
		return nil, err
	}
	// The rest of the run sees Dir as generated, absolute, since eddy
	// runs in it.
	if ds.Dir, err = filepath.Abs(ds.Dir); err != nil {
		return nil, fmt.Errorf("resolving %s: %w", ds.Dir, err)
	}
	ds.Bids, ds.Auctions = filepath.Join(ds.Dir, "bids.jsonl"), filepath.Join(ds.Dir, "auctions.jsonl")

	duck := DuckDB{Threads: cfg.Parallelism}
	ed := Eddy{Bin: cfg.EddyBin, Parallelism: cfg.Parallelism}
	rep := &Report{Config: cfg, Results: make([]Result, len(cfg.Queries))}
	if rep.DuckDBThreads, err = duck.ThreadsInUse(ctx); err != nil {
		return nil, err
	}
	for i, q := range cfg.Queries {
		rep.Results[i].Query = q
	}
	for run := 1; run <= cfg.Runs; run++ {
		m, err := ed.Startup(ctx, ds)
		if err != nil {
			return nil, fmt.Errorf("eddy startup, run %d: %w", run, err)
		}
		rep.Startup = append(rep.Startup, m)
		for i, q := range cfg.Queries {
			r := &rep.Results[i]
			dm, err := duck.Run(ctx, ds, q)
			if err != nil {
				return nil, fmt.Errorf("run %d: %w", run, err)
			}
			em, err := ed.Run(ctx, ds, q)
			if err != nil {
				return nil, fmt.Errorf("eddy query %s, run %d: %w", q.Name, run, err)
			}
			if !slices.Equal(dm.Check, em.Check) {
				return nil, fmt.Errorf("query %s, run %d: the engines disagree on %s over the result: DuckDB %v, eddy %v",
					q.Name, run, q.Check, dm.Check, em.Check)
			}
			r.DuckDB, r.Eddy = append(r.DuckDB, dm), append(r.Eddy, em)
			logf("run %d %-6s DuckDB %7.3f s  eddy %7.3f s  rows %s", run, q.Name,
				dm.Wall.Seconds(), em.Wall.Seconds(), dm.Check[0])
		}
	}
	return rep, nil
}

// Median returns the measurement of median wall time; with an even count,
// the lower of the two middle ones.
func Median(ms []Measurement) Measurement {
	if len(ms) == 0 {
		return Measurement{}
	}
	s := slices.Clone(ms)
	slices.SortFunc(s, func(a, b Measurement) int { return int(a.Wall - b.Wall) })
	return s[(len(s)-1)/2]
}

// rate returns events per second for rows over d.
func rate(rows int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(rows) / d.Seconds()
}
