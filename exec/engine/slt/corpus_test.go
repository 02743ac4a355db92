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
	for _, p := range []int{1, 2, 4} {
		for _, file := range files {
			name := fmt.Sprintf("p%d/%s", p, strings.TrimSuffix(filepath.Base(file), ".slt"))
			t.Run(name, func(t *testing.T) {
				cfg := Config{
					Engine:        engine.Config{DataDir: t.TempDir(), Parallelism: p},
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
