package agg

// rowLog holds the groups the aggregate saved by copy-on-write while a
// writer goroutine writes its snapshot (snapshot_background.go): each
// group's arena row and key as they were at the barrier, the row copied
// word for word and the key as the group table holds it (an int64, or an
// encoded key, a string, which is never changed in place). Encoding them
// is left to the writer, so that a save costs a batch a copy of a few
// words instead of an entry's encoding. Rows are kept in chunks that are
// never copied as the log grows (a growing slice copied megabytes inside
// a batch) and are kept for the next snapshot when the log is reset.
type rowLog struct {
	stride int
	rows   [][]uint64 // chunks of rowLogChunk rows of stride words
	keys   [][]int64  // chunks of rowLogChunk integer keys
	nulls  [][]bool   // by integer key: the NULL group
	strs   [][]string // chunks of rowLogChunk encoded keys
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

// dropKeys forgets the first n encoded keys, once written, not to keep
// deleted groups' keys alive until they are overwritten. The writer
// goroutine does it, not the aggregate at its next barrier: a second of
// saves can be millions of keys.
func (l *rowLog) dropKeys(n int) {
	for c := 0; c < len(l.strs) && c*rowLogChunk < n; c++ {
		clear(l.strs[c][:min(rowLogChunk, n-c*rowLogChunk)])
	}
}

// addRow appends the row of a group and returns the chunk and index its
// key goes to.
func (l *rowLog) addRow(row []uint64) (c, i int) {
	c, i = l.n/rowLogChunk, l.n%rowLogChunk
	if c == len(l.rows) {
		l.rows = append(l.rows, make([]uint64, rowLogChunk*l.stride))
	}
	copy(l.rows[c][i*l.stride:(i+1)*l.stride], row)
	l.n++
	return c, i
}

// add appends the row and integer key of a group.
func (l *rowLog) add(row []uint64, k int64, null bool) {
	c, i := l.addRow(row)
	if c == len(l.keys) {
		l.keys = append(l.keys, make([]int64, rowLogChunk))
		l.nulls = append(l.nulls, make([]bool, rowLogChunk))
	}
	l.keys[c][i], l.nulls[c][i] = k, null
}

// addKey appends the row and encoded key of a group.
func (l *rowLog) addKey(row []uint64, key string) {
	c, i := l.addRow(row)
	if c == len(l.strs) {
		l.strs = append(l.strs, make([]string, rowLogChunk))
	}
	l.strs[c][i] = key
}

// row returns the row of the i-th group added.
func (l *rowLog) row(i int) []uint64 {
	c, j := i/rowLogChunk, i%rowLogChunk
	return l.rows[c][j*l.stride : (j+1)*l.stride]
}

// at returns the row and integer key of the i-th group added.
func (l *rowLog) at(i int) (row []uint64, k int64, null bool) {
	c, j := i/rowLogChunk, i%rowLogChunk
	return l.row(i), l.keys[c][j], l.nulls[c][j]
}

// keyAt returns the row and encoded key of the i-th group added.
func (l *rowLog) keyAt(i int) (row []uint64, key string) {
	return l.row(i), l.strs[i/rowLogChunk][i%rowLogChunk]
}

// bytes returns the memory the log holds, not counting the encoded keys'
// bytes, which the group table holds too (or held: a group saved and
// then deleted keeps its key here until the next reset).
func (l *rowLog) bytes() int64 {
	return int64(len(l.rows))*rowLogChunk*int64(8*l.stride) + int64(len(l.keys))*rowLogChunk*9 +
		int64(len(l.strs))*rowLogChunk*16
}
