package runs

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeback asks the kernel to start writing the bytes of f in
// [off, off+n) to disk, and does not wait for them (sync_file_range with
// SYNC_FILE_RANGE_WRITE). Its error is not returned: it only starts
// what the file's sync finishes, and the sync reports a failed write.
func writeback(f *os.File, off, n int64) {
	c, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = c.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
