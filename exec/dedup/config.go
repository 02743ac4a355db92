package dedup

import (
	"errors"
	"fmt"

	"github.com/eddysql/eddy/catalog/types"
)

// Config configures a de-duplication operator.
type Config struct {
	// Input are the input column types; the output has the same columns.
	Input []types.T
	// Keys are the input ordinals of the key columns.
	Keys []int
	// WindowMs is how long, in milliseconds, a key is remembered: rows of
	// a key less than WindowMs apart are duplicates of the first. It must
	// be positive.
	WindowMs int64
	// FPR is the false-positive rate the Bloom filters are sized for: the
	// share of new keys that cost an exact lookup. It must be in (0, 1).
	FPR float64
	// TimeCol is the input ordinal of the event-time column (a TIMESTAMP),
	// or -1 for processing time of arrival.
	TimeCol int
}

// bucketsPerWindow is how many time buckets a window spans. More buckets
// free a window's state closer to when it expires (a bucket's keys stay
// until its last time is a window old: at most 1/8 of a window too long)
// at the cost of more filters to test per row; 8 keeps both small.
const bucketsPerWindow = 8

// validate checks the configuration.
func (c *Config) validate() error {
	switch {
	case len(c.Keys) == 0:
		return errors.New("dedup: no key columns")
	case c.WindowMs <= 0:
		return fmt.Errorf("dedup: window %dms is not positive", c.WindowMs)
	case !(c.FPR > 0 && c.FPR < 1):
		return fmt.Errorf("dedup: false-positive rate %g is not between 0 and 1", c.FPR)
	case c.TimeCol >= len(c.Input):
		return fmt.Errorf("dedup: time column %d out of range", c.TimeCol)
	case c.TimeCol >= 0 && c.Input[c.TimeCol].Physical() != types.PhysTimestamp:
		return fmt.Errorf("dedup: time column %d is %s, not a TIMESTAMP", c.TimeCol, c.Input[c.TimeCol])
	}
	for _, k := range c.Keys {
		if k < 0 || k >= len(c.Input) {
			return fmt.Errorf("dedup: key column %d out of range", k)
		}
	}
	return nil
}

// width is the width of a time bucket in milliseconds: a window over
// bucketsPerWindow, at least 1.
func (c *Config) width() int64 { return max((c.WindowMs+bucketsPerWindow-1)/bucketsPerWindow, 1) }

// candidates is the most buckets a row's lookup tests: those whose times
// are within the window of the row's, before it (processing time) or on
// either side (event time, where rows arrive out of order).
func (c *Config) candidates() int {
	n := int((c.WindowMs+c.width()-1)/c.width()) + 1
	if c.TimeCol >= 0 {
		n = 2*n - 1
	}
	return n
}
