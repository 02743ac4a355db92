package sparse

import (
	"errors"
	"iter"
	"os"
	"syscall"
)

// lseek's whence values that find a sparse file's data and holes.
const (
	seekData = 3
	seekHole = 4
)

// DataRegions yields the [lo, hi) ranges of f from from to size that may
// hold data: the ranges lseek(SEEK_DATA/SEEK_HOLE) reports, or the whole
// range where the file system cannot say.
func DataRegions(f *os.File, from, size int64) iter.Seq2[int64, int64] {
	return func(yield func(lo, hi int64) bool) {
		for pos := from; pos < size; {
			lo, err := f.Seek(pos, seekData)
			if errors.Is(err, syscall.ENXIO) || (err == nil && lo >= size) {
				return // nothing but holes from pos on
			}
			if err != nil {
				yield(pos, size)
				return
			}
			hi, err := f.Seek(lo, seekHole)
			if err != nil || hi > size {
				hi = size
			}
			if !yield(max(lo, pos), hi) {
				return
			}
			pos = hi
		}
	}
}
