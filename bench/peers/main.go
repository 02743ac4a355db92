package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	var cfg Config
	var queries string
	flag.IntVar(&cfg.Rows, "rows", 1_000_000, "number of bids to generate")
	flag.IntVar(&cfg.Runs, "runs", 3, "runs of each query on each engine; the table shows the median")
	flag.IntVar(&cfg.Parallelism, "parallelism", 0, "eddy's --parallelism and DuckDB's threads (0: each engine's default, one per CPU)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the data generator")
	flag.StringVar(&queries, "queries", "all", "comma-separated queries to run: filter, tumble, join, topn")
	flag.StringVar(&cfg.Dir, "dir", "", "directory to generate the data set in (default: a temporary directory, removed after)")
	flag.StringVar(&cfg.EddyBin, "eddy", "", "a prebuilt eddy binary (default: build one from this repository)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "peers: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	var err error
	if cfg.Queries, err = SelectQueries(queries); err != nil {
		fmt.Fprintf(os.Stderr, "peers: %v\n", err)
		os.Exit(2)
	}
	if !haveDuckDB {
		fmt.Fprintf(os.Stderr, "peers: %s\n", noCgoHelp)
		os.Exit(1)
	}
	cfg.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := Run(ctx, cfg)
	if err == nil {
		err = rep.Print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "peers: %v\n", err)
		stop()
		os.Exit(1)
	}
}
