//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cli

// termSize knows no terminal on this system: the shell then never pages,
// never switches to expanded display on its own and shows no status line.
func termSize(fd uintptr) (cols, rows int, ok bool) { return 0, 0, false }
