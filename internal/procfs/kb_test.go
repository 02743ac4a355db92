package procfs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestKB reads a value in bytes from a file of /proc's shape, and 0 for
// a missing name, a malformed value or a missing file.
func TestKB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(path, []byte("MemTotal:       24683756 kB\nMemFree: lots kB\nVmSize:\t  1024 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want int64
	}{{"MemTotal:", 24683756 << 10}, {"VmSize:", 1 << 20}, {"MemFree:", 0}, {"SwapTotal:", 0}} {
		if got := KB(path, tc.name); got != tc.want {
			t.Errorf("KB(%s) = %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := KB(filepath.Join(t.TempDir(), "none"), "MemTotal:"); got != 0 {
		t.Errorf("a missing file gave %d", got)
	}
}
