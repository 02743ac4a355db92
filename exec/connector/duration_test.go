package connector

import (
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
