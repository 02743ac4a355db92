//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli

import (
	"syscall"
	"unsafe"
)

// winsize is the kernel's struct winsize.
type winsize struct {
	rows, cols, xpixel, ypixel uint16
}

// termSize returns the size of the terminal open on fd, in columns and
// rows; ok is false when fd is not a terminal.
func termSize(fd uintptr) (cols, rows int, ok bool) {
	var ws winsize
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0, 0, false
	}
	return int(ws.cols), int(ws.rows), true
}
