//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package badger

// dirLock is a no-op where flock is unavailable; Badger's own directory
// lock still refuses a second Open there, with its own message.
type dirLock struct{}

func lockDir(string) (*dirLock, error) { return &dirLock{}, nil }

func (l *dirLock) release() {}
