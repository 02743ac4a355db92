package kvlog

import (
	"math"
	"slices"
)

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

// Log is an append-only log of writes. The zero value is an empty log.
type Log struct {
	chunks [][]byte
	recs   []record
	size   int // the bytes of the keys and values appended
}

// Len returns the number of writes appended.
func (l *Log) Len() int { return len(l.recs) }

// Append appends a write of the key pre+k and the value v, or a deletion
// of the key when del is set (v is then ignored). The key and the value
// must each be at most MaxLen bytes long; the caller checks.
func (l *Log) Append(pre, k, v []byte, del bool) {
	klen := len(pre) + len(k)
	if del {
		v = nil
	}
	c := l.room(klen + len(v))
	rec := record{chunk: int32(len(l.chunks) - 1), off: int32(len(c)), klen: int32(klen), vlen: int32(len(v))}
	if del {
		rec.vlen = -1
	}
	c = append(c, pre...)
	c = append(c, k...)
	c = append(c, v...)
	l.chunks[len(l.chunks)-1] = c
	l.size += klen + len(v)
	if len(l.recs) == cap(l.recs) {
		// Double, where append grows a large slice by a quarter at a
		// time and so copies each record about four times in all.
		l.recs = slices.Grow(l.recs, max(len(l.recs), MinChunk/16))
	}
	l.recs = append(l.recs, rec)
}

// room returns the last chunk with room for n more bytes, starting a new
// one if it has not. Offsets within a chunk fit an int32: a chunk larger
// than MaxChunk holds one write, at offset 0.
func (l *Log) room(n int) []byte {
	size := MinChunk
	if len(l.chunks) > 0 {
		c := l.chunks[len(l.chunks)-1]
		if len(c)+n <= cap(c) {
			return c
		}
		size = min(2*cap(c), MaxChunk)
	}
	c := []byte(nil)
	if size == MaxChunk && n <= MaxChunk {
		c = takeChunk()
	}
	if c == nil {
		c = make([]byte, 0, max(size, n))
	}
	l.chunks = append(l.chunks, c)
	return c
}

// Key returns the key of write i. It aliases the log: the caller must not
// modify it, and it stays valid as long as the log.
func (l *Log) Key(i int32) []byte {
	r := &l.recs[i]
	end := int(r.off) + int(r.klen)
	return l.chunks[r.chunk][r.off:end:end]
}

// Val returns the value of write i, and false when it is a deletion. It
// aliases the log as Key does.
func (l *Log) Val(i int32) ([]byte, bool) {
	r := &l.recs[i]
	if r.vlen < 0 {
		return nil, false
	}
	start := int(r.off) + int(r.klen)
	end := start + int(r.vlen)
	return l.chunks[r.chunk][start:end:end], true
}

// Size returns the bytes of the keys and values appended.
func (l *Log) Size() int { return l.size }

// Reset empties the log and keeps its last chunk and its records' slice
// for the writes appended next: a log filled and emptied in turns (a
// buffer flushed when it reaches a size) allocates nothing once warm. Keys
// and values read before Reset must not be used after it.
func (l *Log) Reset() {
	if n := len(l.chunks); n > 0 {
		last := l.chunks[n-1][:0]
		clear(l.chunks)
		l.chunks = append(l.chunks[:0], last)
	}
	l.recs, l.size = l.recs[:0], 0
}

// Bytes returns the bytes of the chunks the log holds.
func (l *Log) Bytes() int64 {
	var n int64
	for _, c := range l.chunks {
		n += int64(cap(c))
	}
	return n + int64(cap(l.recs))*16
}
