package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/exec/engine/slt"
	"github.com/eddysql/eddy/storage"
)

// sltCommand is `eddy slt`.
func (a *app) sltCommand() *cobra.Command {
	var cfg slt.Config
	cmd := &cobra.Command{
		Use:   "slt FILE|DIR...",
		Short: "Run sqllogictest files, each on a fresh engine",
		Long: `Run sqllogictest files (a directory means its *.slt files). Each file runs
on a fresh engine in a temporary directory; with --data-dir, in a
subdirectory of it named after the file, which is kept. Relative paths in
a file are resolved against the file's directory, which file connectors may
not leave (with --file-root, against that directory). Failures name the file,
line and first differing row; eddy exits with status 1 if any record failed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			files, err := sltFiles(args)
			if err != nil {
				return err
			}
			keepDir := cmd.Flags().Changed("data-dir")
			return a.runSLT(cmd.Context(), files, cfg, keepDir)
		}),
	}
	cmd.Flags().BoolVarP(&cfg.Verbose, "verbose", "v", false, "print every record as it runs")
	cmd.Flags().BoolVar(&cfg.FailFast, "fail-fast", false, "stop a file at its first failure")
	cmd.Flags().BoolVar(&cfg.Rewrite, "rewrite", false, "replace the expected results of the queries that differ with their actual results (review the diff!)")
	cmd.Flags().DurationVar(&cfg.RecordTimeout, "timeout", 5*time.Minute, "fail a record that runs longer than this (0: no limit)")
	return cmd
}

// sltFiles expands directories into their *.slt files.
func sltFiles(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, arg)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(arg, "*.slt"))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no .slt files in %s", arg)
		}
		sort.Strings(matches)
		files = append(files, matches...)
	}
	return files, nil
}

// runSLT runs the files in order, printing failures as they happen and a
// summary per file.
func (a *app) runSLT(ctx context.Context, files []string, cfg slt.Config, keepDir bool) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	cfg.Progress = a.out
	var passed, failed, skipped, broken int
	damaged := false
	for _, file := range files {
		fcfg := cfg
		fcfg.Engine = engine.Config{Parallelism: a.opts.parallelism, FileRoot: a.opts.fileRoot,
			CheckpointInterval: a.opts.checkpoint}
		if keepDir {
			fcfg.Engine.DataDir = filepath.Join(a.opts.dataDir, strings.TrimSuffix(filepath.Base(file), ".slt"))
		}
		rep, err := slt.Run(ctx, file, fcfg)
		if rep != nil {
			fmt.Fprintln(a.out, rep.Summary())
			passed, failed, skipped = passed+rep.Passed, failed+rep.Failed, skipped+rep.Skipped
		}
		if err != nil {
			broken++
			damaged = damaged || errors.Is(err, storage.ErrCorrupt)
			fmt.Fprintf(a.io.Err, "ERROR: %v\n", err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	if len(files) > 1 {
		fmt.Fprintf(a.out, "%d files: %d passed, %d failed, %d skipped\n", len(files), passed, failed, skipped)
	}
	switch {
	case damaged:
		return &exitError{code: exitDamaged, err: errors.New("a data directory is damaged"), reported: true}
	case failed > 0 || broken > 0:
		return errReported
	}
	return nil
}
