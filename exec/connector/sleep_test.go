package connector

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepUntil(t *testing.T) {
	ctx := context.Background()
	if err := SleepUntil(ctx, time.Now().Add(-time.Hour)); err != nil {
		t.Fatalf("a past due: %v", err)
	}
	start := time.Now()
	if err := SleepUntil(ctx, start.Add(20*time.Millisecond)); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("returned after %v with %v, want after 20ms", time.Since(start), err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := SleepUntil(cancelled, time.Now().Add(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
}
