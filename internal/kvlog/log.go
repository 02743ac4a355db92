package kvlog

import "math"

// MaxLen bounds the length of a key and of a value: a record holds them in
// int32s.
const MaxLen = math.MaxInt32 - 1

// record is one write: its key is chunks[chunk][off:off+klen] and its value
// the vlen bytes after the key, or, when vlen is negative, the write is a
// deletion.
type record struct {
	chunk int32
	off   int32
	klen  int32
	vlen  int32
}

// The sizes of a log's chunks: the first is MinChunk bytes and each next
// one twice the last, up to MaxChunk, so that a small log takes little
// memory and a large one a chunk per MaxChunk bytes. A write larger than
// that gets a chunk of its own size.
const (
	MinChunk = 4 << 10
	MaxChunk = 4 << 20
)

// Records are kept in pages of PageRecords, so that a log of millions of
// writes never copies its records either: a single growing slice of them
// would copy tens of megabytes at a doubling, in the middle of whatever
// write made it grow (a step of a snapshot written between batches). The
// first page grows by doubling up to its full size, so a small log takes
// little memory.
const (
	pageShift   = 12
	PageRecords = 1 << pageShift
	pageMask    = PageRecords - 1
	minPage     = 64
)

// Log is an append-only log of writes. The zero value is an empty log.
type Log struct {
	chunks [][]byte   // chunks[:cur+1] hold the writes; the rest, emptied by Reset, are kept for the next
	cur    int        // the chunk being filled
	pages  [][]record // write i is pages[i>>pageShift][i&pageMask]
	n      int        // the writes appended
	size   int        // the bytes of the keys and values appended
}

// Len returns the number of writes appended.
func (l *Log) Len() int { return l.n }

// Append appends a write of the key pre+k and the value v, or a deletion
// of the key when del is set (v is then ignored). The key and the value
// must each be at most MaxLen bytes long; the caller checks.
func (l *Log) Append(pre, k, v []byte, del bool) {
	klen := len(pre) + len(k)
	if del {
		v = nil
	}
	c := l.room(klen + len(v))
	rec := record{chunk: int32(l.cur), off: int32(len(c)), klen: int32(klen), vlen: int32(len(v))}
	if del {
		rec.vlen = -1
	}
	c = append(c, pre...)
	c = append(c, k...)
	c = append(c, v...)
	l.chunks[l.cur] = c
	l.size += klen + len(v)
	l.addRecord(rec)
}

// addRecord appends rec to the pages, starting a page when the last is
// full: a page of a log emptied by Reset if it kept one, else from the
// pool, else a fresh one.
func (l *Log) addRecord(rec record) {
	i := l.n >> pageShift
	if i == len(l.pages) {
		var pg []record
		if i > 0 {
			pg = takePage()
		}
		if pg == nil {
			pg = make([]record, 0, PageRecords)
			if i == 0 {
				pg = make([]record, 0, minPage)
			}
		}
		l.pages = append(l.pages, pg)
	}
	pg := &l.pages[i]
	if len(*pg) == cap(*pg) {
		// Only the first page starts below its full size; it doubles.
		grown := make([]record, len(*pg), min(2*cap(*pg), PageRecords))
		copy(grown, *pg)
		*pg = grown
	}
	*pg = append(*pg, rec)
	l.n++
}

// rec returns the record of write i.
func (l *Log) rec(i int32) *record {
	return &l.pages[i>>pageShift][i&pageMask]
}

// room returns the chunk being filled if it has room for n more bytes,
// else moves on to the next: one kept by Reset if it is large enough, else
// a new one. Offsets within a chunk fit an int32: a chunk larger than
// MaxChunk holds one write, at offset 0.
func (l *Log) room(n int) []byte {
	size := MinChunk
	if len(l.chunks) > 0 {
		c := l.chunks[l.cur]
		if len(c)+n <= cap(c) {
			return c
		}
		size = min(2*cap(c), MaxChunk)
		l.cur++
		if l.cur < len(l.chunks) && n <= cap(l.chunks[l.cur]) {
			return l.chunks[l.cur]
		}
	}
	c := []byte(nil)
	if size == MaxChunk && n <= MaxChunk {
		c = takeChunk()
	}
	if c == nil {
		c = make([]byte, 0, max(size, n))
	}
	if l.cur < len(l.chunks) {
		l.chunks[l.cur] = c // a kept chunk too small for the write
	} else {
		l.chunks = append(l.chunks, c)
	}
	return c
}

// Key returns the key of write i. It aliases the log: the caller must not
// modify it, and it stays valid as long as the log.
func (l *Log) Key(i int32) []byte {
	r := l.rec(i)
	end := int(r.off) + int(r.klen)
	return l.chunks[r.chunk][r.off:end:end]
}

// Val returns the value of write i, and false when it is a deletion. It
// aliases the log as Key does.
func (l *Log) Val(i int32) ([]byte, bool) {
	r := l.rec(i)
	if r.vlen < 0 {
		return nil, false
	}
	start := int(r.off) + int(r.klen)
	end := start + int(r.vlen)
	return l.chunks[r.chunk][start:end:end], true
}

// Size returns the bytes of the keys and values appended.
func (l *Log) Size() int { return l.size }

// Reset empties the log and keeps its chunks and its pages of records for
// the writes appended next: a log filled and emptied in turns (a buffer
// flushed when it reaches a size, the entries a snapshot saves) allocates
// nothing once warm, and writes into memory it has touched before (fresh
// memory costs a page fault per 4 KiB on its first touch, a millisecond
// or more for a chunk, in whatever write crosses into it). Keys and values
// read before Reset must not be used after it.
func (l *Log) Reset() {
	for i := range l.chunks {
		l.chunks[i] = l.chunks[i][:0]
	}
	for i := range l.pages {
		l.pages[i] = l.pages[i][:0]
	}
	l.cur, l.n, l.size = 0, 0, 0
}

// Bytes returns the bytes of the chunks the log holds.
func (l *Log) Bytes() int64 {
	var n int64
	for _, c := range l.chunks {
		n += int64(cap(c))
	}
	for _, pg := range l.pages {
		n += int64(cap(pg)) * recordBytes
	}
	return n
}

// recordBytes is the size of a record.
const recordBytes = 16
