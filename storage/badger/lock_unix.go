//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package badger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/eddysql/eddy/storage"
)

// lockFile is the file in the data directory whose flock marks it in use.
const lockFile = "eddy.lock"

// dirLock is a held lock on a data directory.
type dirLock struct{ f *os.File }

// lockDir takes the data directory's lock without waiting. flock locks
// belong to an open file, so a second Open in the same process fails too.
func lockDir(dir string) (*dirLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storage: locking data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("storage: data directory %s is %w", dir, storage.ErrInUse)
		}
		return nil, fmt.Errorf("storage: locking data directory %s: %w", dir, err)
	}
	return &dirLock{f: f}, nil
}

// release drops the lock; it is a no-op on nil.
func (l *dirLock) release() {
	if l != nil {
		l.f.Close() // closing the file releases the flock
	}
}
