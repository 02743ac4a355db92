package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// eddyModule is the main module's path, which the repository root's
// go.mod declares.
const eddyModule = "github.com/eddysql/eddy"

// Measurement is one timed run of one query on one engine.
type Measurement struct {
	// Wall is the elapsed time: for eddy the whole `eddy exec` process,
	// for DuckDB the CREATE TABLE ... AS statement.
	Wall time.Duration
	// CPU is the user + system CPU time over the same span: the eddy
	// process's, or the benchmark process's while DuckDB ran.
	CPU time.Duration
	// Check holds the values of the query's Check over v, as text.
	Check []string
}

// Eddy runs queries with an eddy binary, one fresh process and data
// directory per run.
type Eddy struct {
	// Bin is the eddy binary.
	Bin string
	// Parallelism is passed as --parallelism (0: eddy's default, one
	// instance per CPU).
	Parallelism int
}

// FindRoot returns the eddy repository's root: the nearest directory at
// or above the working directory whose go.mod declares eddyModule.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository root: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(data) == eddyModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no directory above the working directory holds the go.mod of %s", eddyModule)
		}
		dir = parent
	}
}

// modulePath returns the path of the module line of a go.mod file.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// BuildEddy builds the eddy command of the repository at root into out,
// with `go build -p 1` so it leaves the second core to other work.
func BuildEddy(ctx context.Context, root, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-p", "1", "-o", out, eddyModule+"/cmd/eddy")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building eddy in %s: %w\n%s", root, err, stderr.Bytes())
	}
	return nil
}

// Run runs q on the data set in a new `eddy exec` process with a new data
// directory, and measures the process from its start to its exit. The
// script creates the stream, the table and the view, waits with FLUSH
// until the file has been read to its end and the view holds every row,
// and reads the check over the view, so the measured span covers all of
// that, the engine's start and close included. Checkpoints are off
// (--checkpoint-interval 0): DuckDB's in-memory database keeps nothing
// durable either.
func (e Eddy) Run(ctx context.Context, ds Dataset, q Query) (Measurement, error) {
	return e.run(ctx, ds, eddyScript(q))
}

// Startup runs the DDL alone, with no view: what every eddy run spends on
// starting the process and the engine, creating the catalog and closing.
func (e Eddy) Startup(ctx context.Context, ds Dataset) (Measurement, error) {
	return e.run(ctx, ds, eddyDDL+fmt.Sprintf("SELECT '%s' AS tag;\n", checkTag))
}

// run runs script in a new eddy process and returns its measurement, with
// the values of the row that starts with checkTag.
func (e Eddy) run(ctx context.Context, ds Dataset, script string) (Measurement, error) {
	dataDir, err := os.MkdirTemp("", "peers-eddy-data-")
	if err != nil {
		return Measurement{}, fmt.Errorf("creating eddy's data directory: %w", err)
	}
	defer os.RemoveAll(dataDir)
	args := []string{
		"exec",
		"--data-dir", dataDir,
		"--file-root", ds.Dir,
		"--format", "csv",
		"--timing=false",
		"--checkpoint-interval", "0",
		"--parallelism", strconv.Itoa(e.Parallelism),
		"-e", script,
	}
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Dir = ds.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return Measurement{}, fmt.Errorf("eddy exec: %w\n%s", err, stderr.Bytes())
	}
	check, err := findCheck(stdout.Bytes())
	if err != nil {
		return Measurement{}, fmt.Errorf("reading eddy's output: %w\n%s", err, stdout.Bytes())
	}
	st := cmd.ProcessState
	return Measurement{Wall: wall, CPU: st.UserTime() + st.SystemTime(), Check: check}, nil
}

// findCheck returns the values after checkTag in the CSV row that starts
// with it.
func findCheck(out []byte) ([]string, error) {
	for line := range bytes.Lines(out) {
		if !bytes.HasPrefix(line, []byte(checkTag+",")) && !bytes.Equal(bytes.TrimSpace(line), []byte(checkTag)) {
			continue
		}
		rec, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil {
			return nil, fmt.Errorf("parsing the check row %q: %w", line, err)
		}
		return rec[1:], nil
	}
	return nil, errors.New("no check row in the output")
}
