package hugepage

import (
	"os"
	"strings"
	"syscall"
)

// heapAdviceRefused returns why ReserveHeap should not advise the heap
// here, or "".
func heapAdviceRefused() string {
	switch m := thpMode(); m {
	case "madvise":
	case "":
		return "this kernel has no transparent huge pages"
	default:
		return "transparent_hugepage is " + m
	}
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err == nil && strings.TrimSpace(string(b)) == "2" {
		return "strict overcommit accounting"
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil && lim.Cur < 1<<62 {
		return "an address-space limit"
	}
	return ""
}
