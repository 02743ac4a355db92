package cli

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/eddysql/eddy/internal/procfs"
)

// detectMemory returns the tightest memory bound the process runs under
// and where it comes from: the cgroup's memory limit (v2 memory.max or v1
// memory.limit_in_bytes), the address-space and data-segment rlimits, or
// the machine's memory (MemTotal); 0 when none can be read.
func detectMemory() (int64, string) {
	var best int64
	var src string
	consider := func(n int64, what string) {
		if n > 0 && (best == 0 || n < best) {
			best, src = n, what
		}
	}
	consider(readLimitFile("/sys/fs/cgroup/memory.max"), "the cgroup's memory.max")
	consider(readLimitFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"), "the cgroup's memory limit")
	// An address-space limit counts what is mapped, not what is used: the
	// process maps a good deal before it holds any data (Badger's tables,
	// the runtime's reservations), and Go's heap keeps the address space
	// of its peak mapped after returning the memory. So the bound is half
	// of what is left of the address space now.
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil && lim.Cur < 1<<62 {
		consider((int64(lim.Cur)-vmSize())/2, "the address-space limit (ulimit -v)")
	}
	if syscall.Getrlimit(syscall.RLIMIT_DATA, &lim) == nil && lim.Cur < 1<<62 {
		consider(int64(lim.Cur)-vmSize(), "the data-segment limit (ulimit -d)")
	}
	consider(memTotal(), "the machine's memory")
	return best, src
}

// readLimitFile reads a cgroup limit file: a byte count, or "max".
func readLimitFile(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n >= 1<<62 {
		return 0 // "max", or v1's "no limit" of nearly 2^63
	}
	return n
}

// memTotal returns the machine's memory (MemTotal in /proc/meminfo).
func memTotal() int64 { return procfs.MemTotal() }

// vmSize returns the process's mapped address space (VmSize).
func vmSize() int64 { return procfs.KB("/proc/self/status", "VmSize:") }
