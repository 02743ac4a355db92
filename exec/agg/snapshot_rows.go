package agg

// rowLog holds the groups the aggregate saved by copy-on-write while a
// writer goroutine writes its snapshot (snapshot_background.go): each
// group's arena row and integer key as they were at the barrier, copied
// word for word. Encoding them is left to the writer, so that a save
// costs a batch a copy of a few words instead of an entry's encoding.
// Rows are kept in chunks that are never copied as the log grows (a
// growing slice copied megabytes inside a batch) and are kept for the
// next snapshot when the log is reset.
type rowLog struct {
	stride int
	rows   [][]uint64 // chunks of rowLogChunk rows of stride words
	keys   [][]int64  // chunks of rowLogChunk keys
	nulls  [][]bool   // by key: the NULL group
	n      int
}

// rowLogChunk is the number of rows in a chunk of a rowLog.
const rowLogChunk = 4096

// reset empties the log, for rows of stride words, keeping its chunks.
func (l *rowLog) reset(stride int) {
	if stride != l.stride {
		*l = rowLog{stride: stride}
	}
	l.n = 0
}

// add appends the row and key of a group.
func (l *rowLog) add(row []uint64, k int64, null bool) {
	c, i := l.n/rowLogChunk, l.n%rowLogChunk
	if c == len(l.rows) {
		l.rows = append(l.rows, make([]uint64, rowLogChunk*l.stride))
		l.keys = append(l.keys, make([]int64, rowLogChunk))
		l.nulls = append(l.nulls, make([]bool, rowLogChunk))
	}
	copy(l.rows[c][i*l.stride:(i+1)*l.stride], row)
	l.keys[c][i], l.nulls[c][i] = k, null
	l.n++
}

// at returns the row and key of the i-th group added.
func (l *rowLog) at(i int) (row []uint64, k int64, null bool) {
	c, j := i/rowLogChunk, i%rowLogChunk
	return l.rows[c][j*l.stride : (j+1)*l.stride], l.keys[c][j], l.nulls[c][j]
}

// bytes returns the memory the log holds.
func (l *rowLog) bytes() int64 {
	return int64(len(l.rows)) * rowLogChunk * int64(8*l.stride+8+1)
}
