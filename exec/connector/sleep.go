package connector

import (
	"context"
	"time"
)

// SleepUntil waits until due (returning at once when it is past), or until
// ctx is done, with ctx's error: how a throttled source or sink keeps to
// its rate.
func SleepUntil(ctx context.Context, due time.Time) error {
	d := time.Until(due)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
