package cli

import "testing"

// TestDetectMemory: on Linux a bound is always found (at least the
// machine's memory), and it is no larger than the machine's memory.
func TestDetectMemory(t *testing.T) {
	b, src := detectMemory()
	if total := memTotal(); total > 0 && (b <= 0 || b > total || src == "") {
		t.Errorf("detectMemory() = %d (%s), machine has %d", b, src, total)
	}
}
