package sink

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// confineTree makes base/work (the root, holding the data directory
// eddy-data with a MANIFEST) and base/outside, and returns base, work and
// the root.
func confineTree(t *testing.T) (base, work string, root fileroot.Root) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work = filepath.Join(base, "work")
	for _, d := range []string{filepath.Join(work, "eddy-data"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "eddy-data", "MANIFEST"), []byte("badger"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err = fileroot.New(work, filepath.Join(work, "eddy-data"))
	if err != nil {
		t.Fatal(err)
	}
	return base, work, root
}

// TestSinkPathConfined checks that FromOptions (CREATE SINK) refuses a
// file sink's path outside the root or in the data directory, plain or
// partitioned, with an *OptionError for path.
func TestSinkPathConfined(t *testing.T) {
	base, work, root := confineTree(t)
	for _, tt := range []struct {
		path, partitionBy string
		want              error // nil: accepted
	}{
		{path: "out.csv"},
		{path: filepath.Join(work, "sub", "out.csv")},
		{path: "../../x.csv", want: fileroot.ErrOutside},
		{path: filepath.Join(base, "outside", "x.csv"), want: fileroot.ErrOutside},
		{path: "/etc/passwd.csv", want: fileroot.ErrOutside},
		{path: "eddy-data/MANIFEST", want: fileroot.ErrDataDir},
		{path: "eddy-data/x.csv", want: fileroot.ErrDataDir},
		{path: "eddy-data", partitionBy: "n", want: fileroot.ErrDataDir},
		{path: "../outside/parts", partitionBy: "n", want: fileroot.ErrOutside},
		{path: "parts/", partitionBy: "n"},
	} {
		opts := map[string]string{"connector": "file", "path": tt.path, "format": "csv"}
		if tt.partitionBy != "" {
			opts["partition_by"] = tt.partitionBy
		}
		_, err := FromOptions(opts, root)
		var oe *OptionError
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("path %q: %v", tt.path, err)
		case tt.want != nil && (!errors.Is(err, tt.want) || !errors.As(err, &oe) || oe.Option != "path"):
			t.Errorf("path %q: %v, want an *OptionError for path wrapping %v", tt.path, err, tt.want)
		}
	}
}

// TestSinkPathRecheckedAtOpen checks that a link moved out of the root
// after CREATE SINK is refused when the sink opens, with the same error,
// and that nothing is written where it leads.
func TestSinkPathRecheckedAtOpen(t *testing.T) {
	base, work, root := confineTree(t)
	link := filepath.Join(work, "latest")
	if err := os.Symlink("sub", link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	cfg, err := FromOptions(map[string]string{"connector": "file", "path": "latest/out.csv"}, root)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Names, cfg.Types = allNames, allTypes
	os.Remove(link)
	if err := os.Symlink(filepath.Join(base, "outside"), link); err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, cfg)
	err = s.Open(context.Background(), exec.NewTestEnv(memory.DefaultAllocator))
	want := "file sink: option path: 'latest/out.csv' is outside the file root " + work
	if !errors.Is(err, fileroot.ErrOutside) || err.Error() != want {
		t.Errorf("Open = %v, want %q", err, want)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(base, "outside", "out.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sink wrote outside the root: %v", err)
	}
}

// TestPartitionLinkedOut checks that a partition directory replaced by a
// link out of the root is refused when its file is opened, and that the
// start-of-run cleanup does not follow such a link.
func TestPartitionLinkedOut(t *testing.T) {
	base, work, root := confineTree(t)
	outside := filepath.Join(base, "outside")
	// An earlier run's file where the link will lead: the cleanup must
	// leave it alone.
	if err := os.WriteFile(filepath.Join(outside, "part-0.csv"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := FromOptions(map[string]string{"connector": "file", "path": "parts", "format": "csv", "partition_by": "cat"}, root)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Names, cfg.Types, cfg.AppendOnly = partNames, partTypes, true
	if err := os.MkdirAll(filepath.Join(work, "parts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work, "parts", "Cat=x")); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	s := mustNew(t, cfg)
	open(t, s)
	if got := readFile(t, filepath.Join(outside, "part-0.csv")); got != "keep\n" {
		t.Errorf("the cleanup followed the link: the file outside holds %q", got)
	}
	alloc := newAlloc(t)
	err = s.Process(context.Background(), 0, makeChunk(t, alloc, partNames, partTypes, [][]types.Datum{partRow(1, sp("x"), nil)}, nil), nil)
	if !errors.Is(err, fileroot.ErrOutside) {
		t.Errorf("Process into a linked-out partition = %v, want %v", err, fileroot.ErrOutside)
	}
	s.Close()
	if got := readFile(t, filepath.Join(outside, "part-0.csv")); got != "keep\n" {
		t.Errorf("the sink wrote outside the root: the file holds %q", got)
	}
}
