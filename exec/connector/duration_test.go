package connector

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"250", 250 * time.Millisecond},
		{"1s", time.Second},
		{" 500ms ", 500 * time.Millisecond},
		{"1m30s", 90 * time.Second},
		{"2 seconds", 2 * time.Second},
		{"1 Second", time.Second},
		{"2 milliseconds", 2 * time.Millisecond},
		{"3 minutes", 3 * time.Minute},
		{"1 hour", time.Hour},
	} {
		got, err := ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "soon", "-1s", "-5", "1 fortnight"} {
		if _, err := ParseDuration(in); err == nil || err.Error() != "invalid duration '"+in+"' (write e.g. '5s', '500ms' or '1m')" {
			t.Errorf("ParseDuration(%q): %v, want an invalid duration error", in, err)
		}
	}
}

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
