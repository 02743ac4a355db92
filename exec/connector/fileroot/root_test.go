package fileroot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes, under a temporary directory,
//
//	outside/secret              a file outside the root
//	work/                       the root
//	work/in.csv                 a file
//	work/sub/                   a directory
//	work/eddy-data/MANIFEST     the data directory, inside the root
//	work/out -> ../outside      a link leading out
//	work/dangling -> ../outside/new.csv   a link to a file not yet there
//	work/up -> ..               a link to the root's parent
//	work/in -> sub              a relative link that stays in
//	work/abs_in -> <abs>/work/sub         an absolute link that stays in
//	work/data -> eddy-data      a link into the data directory
//	work/loop -> loop           a link to itself
//	rootlink -> work            a link to the root
//
// and returns the temporary directory's real path.
func tree(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "work")
	for _, d := range []string{"outside", "work/sub", "work/eddy-data"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"outside/secret", "work/in.csv", "work/eddy-data/MANIFEST"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"work/out": "../outside", "work/dangling": "../outside/new.csv", "work/up": "..",
		"work/in": "sub", "work/abs_in": filepath.Join(work, "sub"), "work/data": "eddy-data",
		"work/loop": "loop", "rootlink": "work",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	return base
}

func TestResolve(t *testing.T) {
	base := tree(t)
	work := filepath.Join(base, "work")
	data := filepath.Join(work, "eddy-data")
	root, err := New(work, data)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // the resolved path, relative to work ("." for work)
		err        error  // ErrOutside, ErrDataDir, or another failure when errOther
		errOther   bool
	}{
		{name: "relative file", path: "in.csv", want: "in.csv"},
		{name: "relative, not there yet", path: "sub/new/out.csv", want: "sub/new/out.csv"},
		{name: "dot segments inside", path: "./sub/../in.csv", want: "in.csv"},
		{name: "the root itself", path: ".", want: "."},
		{name: "trailing slash", path: "sub/", want: "sub"},
		{name: "trailing slashes and dots", path: "sub//./", want: "sub"},
		{name: "absolute inside", path: filepath.Join(work, "in.csv"), want: "in.csv"},
		{name: "absolute inside, trailing slash", path: work + "/sub/", want: "sub"},
		{name: "absolute outside", path: "/etc/passwd", err: ErrOutside},
		{name: "absolute outside, sibling with the root's name as prefix", path: work + "2/x.csv", err: ErrOutside},
		{name: "dot-dot escape", path: "../../x", err: ErrOutside},
		{name: "dot-dot escape through a missing directory", path: "nope/../../outside/secret", err: ErrOutside},
		{name: "dot-dot back in", path: "../work/in.csv", want: "in.csv"},
		{name: "symlink out", path: "out/secret", err: ErrOutside},
		{name: "symlink out, file not there yet", path: "out/new.csv", err: ErrOutside},
		{name: "dangling symlink out", path: "dangling", err: ErrOutside},
		{name: "symlink to the parent", path: "up/outside/secret", err: ErrOutside},
		{name: "dot-dot after a link climbs from its target", path: "in/../in.csv", want: "in.csv"},
		{name: "dot-dot after a link out", path: "out/../work/in.csv", want: "in.csv"},
		{name: "relative symlink in", path: "in/x.csv", want: "sub/x.csv"},
		{name: "absolute symlink in", path: "abs_in/x.csv", want: "sub/x.csv"},
		{name: "absolute path through the root's link", path: filepath.Join(base, "rootlink", "in.csv"), want: "in.csv"},
		{name: "the data directory", path: "eddy-data", err: ErrDataDir},
		{name: "the data directory, trailing slash", path: "eddy-data/", err: ErrDataDir},
		{name: "inside the data directory", path: "eddy-data/MANIFEST", err: ErrDataDir},
		{name: "inside the data directory, absolute", path: filepath.Join(data, "000001.vlog"), err: ErrDataDir},
		{name: "inside the data directory by a link", path: "data/MANIFEST", err: ErrDataDir},
		{name: "into the data directory by dot-dot", path: "sub/../eddy-data/MANIFEST", err: ErrDataDir},
		{name: "a sibling named like the data directory", path: "eddy-data2/x.csv", want: "eddy-data2/x.csv"},
		{name: "a link loop", path: "loop/x", errOther: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := root.Resolve(tt.path)
			switch {
			case tt.errOther:
				var pe *PathError
				if err == nil || errors.As(err, &pe) {
					t.Fatalf("Resolve(%q) = %q, %v; want an error that is no *PathError", tt.path, got, err)
				}
			case tt.err != nil:
				var pe *PathError
				if !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Path != tt.path {
					t.Fatalf("Resolve(%q) = %q, %v; want a *PathError %v", tt.path, got, err, tt.err)
				}
			default:
				if err != nil {
					t.Fatalf("Resolve(%q): %v", tt.path, err)
				}
				if want := filepath.Join(work, tt.want); got != want {
					t.Errorf("Resolve(%q) = %q, want %q", tt.path, got, want)
				}
			}
		})
	}
}

// TestErrorMessages checks the messages users see.
func TestErrorMessages(t *testing.T) {
	base := tree(t)
	work := filepath.Join(base, "work")
	root, err := New(work, filepath.Join(work, "eddy-data"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"../../x":            "'../../x' is outside the file root " + work,
		"it's/../../x":       "'it''s/../../x' is outside the file root " + work,
		"eddy-data/MANIFEST": "'eddy-data/MANIFEST' is inside the data directory " + filepath.Join(work, "eddy-data"),
	} {
		if _, err := root.Resolve(path); err == nil || err.Error() != want {
			t.Errorf("Resolve(%q) = %v, want %q", path, err, want)
		}
	}
	if _, err := (Root{}).Resolve("in.csv"); err == nil {
		t.Error("the zero Root accepted a path")
	}
}

// TestNew checks the roots New accepts: existing directories, given by any
// path; the data directory need not exist, and may be reached by a link.
func TestNew(t *testing.T) {
	base := tree(t)
	work := filepath.Join(base, "work")
	if _, err := New(filepath.Join(base, "nope"), ""); err == nil {
		t.Error("New accepted a missing root")
	}
	if _, err := New(filepath.Join(work, "in.csv"), ""); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("New on a file: %v", err)
	}
	root, err := New(filepath.Join(base, "rootlink"), filepath.Join(work, "data"))
	if err != nil {
		t.Fatal(err)
	}
	if root.Dir() != work {
		t.Errorf("Dir() = %q, want %q", root.Dir(), work)
	}
	if _, err := root.Resolve("eddy-data/MANIFEST"); !errors.Is(err, ErrDataDir) {
		t.Errorf("a data directory given by a link: %v", err)
	}
	root, err = New(work, filepath.Join(work, "not-yet"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.Resolve("not-yet/x"); !errors.Is(err, ErrDataDir) {
		t.Errorf("a data directory that does not exist yet: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	root, err = New("", "")
	if err != nil {
		t.Fatal(err)
	}
	if root.Dir() != work {
		t.Errorf("the default root is %q, want the working directory %q (was %q)", root.Dir(), work, wd)
	}
}
