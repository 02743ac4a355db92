package damagetest

import (
	"errors"
	"iter"
	"os"
	"syscall"
)

// dataRegions yields the [lo, hi) ranges of f that may hold data, by
// lseek(SEEK_DATA/SEEK_HOLE), or the whole file where that fails.
func dataRegions(f *os.File, size int64) iter.Seq2[int64, int64] {
	const seekData, seekHole = 3, 4
	return func(yield func(lo, hi int64) bool) {
		for pos := int64(0); pos < size; {
			lo, err := f.Seek(pos, seekData)
			if errors.Is(err, syscall.ENXIO) || (err == nil && lo >= size) {
				return
			}
			if err != nil {
				yield(pos, size)
				return
			}
			hi, err := f.Seek(lo, seekHole)
			if err != nil || hi > size {
				hi = size
			}
			if !yield(lo, hi) {
				return
			}
			pos = hi
		}
	}
}
