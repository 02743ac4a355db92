package fileroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links one path may go through, as the
// operating system bounds them (Linux follows 40), so that a loop of links
// ends in an error.
const maxLinks = 255

// errLinks is a path that goes through more than maxLinks links.
var errLinks = errors.New("too many levels of symbolic links")

// realPath returns the absolute path p as the operating system would
// follow it: component by component, each symbolic link replaced by its
// target, `..` climbing from the directory reached so far. From the first
// component that does not exist (or cannot be examined) on, the rest is
// taken as written, cleaned: nothing there is a link yet.
func realPath(p string) (string, error) {
	sep := string(filepath.Separator)
	vol := filepath.VolumeName(p)
	resolved := vol + sep
	rest := p[len(vol):]
	links := 0
	missing := false
	for rest != "" {
		var c string
		if i := strings.IndexAny(rest, `/`+sep); i >= 0 {
			c, rest = rest[:i], rest[i+1:]
		} else {
			c, rest = rest, ""
		}
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		if missing {
			resolved = next
			continue
		}
		info, err := os.Lstat(next)
		if err != nil {
			// Not there (or not reachable): neither is anything below it,
			// so nothing below can be a link.
			missing = true
			resolved = next
			continue
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", errLinks
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			resolved, target = v+sep, target[len(v):]
		}
		if rest != "" {
			target += sep + rest
		}
		rest = target
	}
	return resolved, nil
}
