package slt

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/engine"
)

// TestSLT runs every end-to-end sqllogictest file, each on a fresh engine.
func TestSLT(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "slt")
	files, err := filepath.Glob(filepath.Join(dir, "*.slt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .slt files in %s", dir)
	}
	// Results must not depend on parallelism: the whole corpus runs at 1, 2
	// and 4 (statements that SET parallelism override it for what follows).
	// Nor on checkpoints: the queries are checkpointed as by default (only
	// FLUSH, for file sinks, and closing the engine, for every query, take
	// one within a run this short), and the corpus runs once more at 2
	// with every query checkpointed every millisecond, so barriers cross
	// every dataflow among its rows, flushes and watermarks.
	configs := []struct {
		name        string
		parallelism int
		checkpoint  time.Duration
	}{{"p1", 1, time.Hour}, {"p2", 2, time.Hour}, {"p4", 4, time.Hour}, {"p2-checkpoints", 2, time.Millisecond}}
	for _, c := range configs {
		for _, file := range files {
			name := fmt.Sprintf("%s/%s", c.name, strings.TrimSuffix(filepath.Base(file), ".slt"))
			t.Run(name, func(t *testing.T) {
				cfg := Config{
					Engine:        engine.Config{DataDir: t.TempDir(), Parallelism: c.parallelism, CheckpointInterval: c.checkpoint},
					RecordTimeout: 2 * time.Minute,
				}
				rep, err := Run(context.Background(), file, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() {
					t.Fatal(rep.String())
				}
			})
		}
	}
}
