package procfs

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// KB reads the "name N kB" line of the file at path (name with its colon,
// such as "MemTotal:") and returns its value in bytes, or 0 when the file
// or the line is missing or unreadable.
func KB(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == name {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// MemTotal returns the machine's memory (MemTotal in /proc/meminfo), or 0
// where it cannot be read.
func MemTotal() int64 { return KB("/proc/meminfo", "MemTotal:") }
