//go:build !linux

package sparse

import (
	"iter"
	"os"
)

// DataRegions yields the whole range from from to size: without
// SEEK_DATA, every byte is read.
func DataRegions(_ *os.File, from, size int64) iter.Seq2[int64, int64] {
	return func(yield func(lo, hi int64) bool) {
		if from < size {
			yield(from, size)
		}
	}
}
