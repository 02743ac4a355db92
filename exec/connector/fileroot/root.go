// Package fileroot confines the paths of file connectors (the file source
// and the file sink) to a root directory, as SQL.md requires: a relative
// path resolves against the root, an absolute one must lie inside it, and
// no path may reach into eddy's data directory, whose files (Badger's
// MANIFEST, its tables and logs) a sink would otherwise overwrite.
//
// A path is checked as the operating system would follow it: every
// symbolic link of the part that exists is resolved, as
// filepath.EvalSymlinks resolves it, and a `..` after a link climbs from
// where the link leads. The part that does not exist yet (a sink's file,
// a partitioned sink's directories) is taken as written, since a sink
// creates it as plain directories and files. Connectors check a path when
// the stream or sink is created and again each time they open the file, so
// that a link swapped in between is still refused.
package fileroot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Errors that callers branch on; a *PathError wraps one of them.
var (
	// ErrOutside is a path outside the file root.
	ErrOutside = errors.New("outside the file root")
	// ErrDataDir is a path inside the data directory.
	ErrDataDir = errors.New("inside the data directory")
)

// PathError is a path a file connector may not use.
type PathError struct {
	Path string // as the user gave it
	Dir  string // the root, or the data directory
	Err  error  // ErrOutside or ErrDataDir
}

// Error returns, for example, "'../../x' is outside the file root /home/u/work".
func (e *PathError) Error() string {
	return fmt.Sprintf("'%s' is %v %s", strings.ReplaceAll(e.Path, "'", "''"), e.Err, e.Dir)
}

func (e *PathError) Unwrap() error { return e.Err }

// Root is the directory file connectors are confined to, and the data
// directory they may never reach. The zero Root refuses every path.
type Root struct {
	dir     string // the root's real path (symbolic links resolved)
	dataDir string // the data directory's real path, or "" for none
}

// New returns the Root for directory dir (empty: the working directory),
// which must exist, and for the data directory dataDir (empty: none, for
// an engine that keeps its data in memory), which need not exist yet.
func New(dir, dataDir string) (Root, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Root{}, fmt.Errorf("file root: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, fmt.Errorf("file root %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Root{}, fmt.Errorf("file root: %w", err)
	}
	if info, err := os.Stat(real); err != nil {
		return Root{}, fmt.Errorf("file root: %w", err)
	} else if !info.IsDir() {
		return Root{}, fmt.Errorf("file root %s is not a directory", dir)
	}
	r := Root{dir: real}
	if dataDir != "" {
		abs, err := filepath.Abs(dataDir)
		if err != nil {
			return Root{}, fmt.Errorf("data directory %s: %w", dataDir, err)
		}
		if r.dataDir, err = realPath(abs); err != nil {
			return Root{}, fmt.Errorf("data directory %s: %w", dataDir, err)
		}
	}
	return r, nil
}

// Dir returns the root directory, with its symbolic links resolved.
func (r Root) Dir() string { return r.dir }

// Resolve returns the real path that path names for a file connector:
// relative to the root when it is relative, with its symbolic links
// resolved. A path outside the root, or inside the data directory, is a
// *PathError.
func (r Root) Resolve(path string) (string, error) {
	if r.dir == "" {
		return "", errors.New("file connectors have no root directory")
	}
	full := path
	if !filepath.IsAbs(path) {
		// Joined without cleaning: `link/..` must climb from where the
		// link leads, as the operating system climbs.
		full = r.dir + string(filepath.Separator) + path
	}
	real, err := realPath(full)
	if err != nil {
		return "", fmt.Errorf("path '%s': %w", strings.ReplaceAll(path, "'", "''"), err)
	}
	if !within(real, r.dir) {
		return "", &PathError{Path: path, Dir: r.dir, Err: ErrOutside}
	}
	if r.dataDir != "" && within(real, r.dataDir) {
		return "", &PathError{Path: path, Dir: r.dataDir, Err: ErrDataDir}
	}
	return real, nil
}

// within reports whether path is dir or lies under it; both are clean
// absolute paths.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}
