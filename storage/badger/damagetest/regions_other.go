//go:build !linux

package damagetest

import (
	"iter"
	"os"
)

// dataRegions yields the whole file.
func dataRegions(_ *os.File, size int64) iter.Seq2[int64, int64] {
	return func(yield func(lo, hi int64) bool) {
		if size > 0 {
			yield(0, size)
		}
	}
}
