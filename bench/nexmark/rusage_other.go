//go:build !unix

package nexmark

import (
	"errors"
	"time"
)

// usage is not implemented off Unix: the benchmark needs getrusage.
func usage() (time.Duration, time.Duration, int64, error) {
	return 0, 0, 0, errors.New("eddy bench needs getrusage, which this system lacks")
}
