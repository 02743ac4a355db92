package kvlog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestLogKeepsEveryWrite appends writes of random sizes, some larger than
// a chunk, and checks that each reads back as written after all of them.
func TestLogKeepsEveryWrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type write struct {
		key, val []byte
		del      bool
	}
	var l Log
	var want []write
	for i := range 20000 {
		n := rng.IntN(64)
		if i%5000 == 7 {
			n = MaxChunk + 123 // a write that needs a chunk of its own
		}
		w := write{key: fmt.Appendf(nil, "k%06d", i), val: bytes.Repeat([]byte{byte(i)}, n), del: rng.IntN(10) == 0}
		pre, k := w.key[:1], w.key[1:]
		l.Append(pre, k, w.val, w.del)
		if w.del {
			w.val = nil
		}
		want = append(want, w)
	}
	if l.Len() != len(want) {
		t.Fatalf("Len %d, want %d", l.Len(), len(want))
	}
	for i, w := range want {
		if k := l.Key(int32(i)); !bytes.Equal(k, w.key) {
			t.Fatalf("write %d: key %q, want %q", i, k, w.key)
		}
		v, ok := l.Val(int32(i))
		if ok == w.del || !bytes.Equal(v, w.val) {
			t.Fatalf("write %d: value of %d bytes (set %v), want %d bytes (deleted %v)", i, len(v), ok, len(w.val), w.del)
		}
	}
	for _, c := range l.chunks[:len(l.chunks)-1] {
		if cap(c) > MaxChunk && len(c) != cap(c) {
			t.Fatalf("an oversized chunk of %d bytes holds %d", cap(c), len(c))
		}
	}
}

// TestLogReturnsCappedSlices checks that appending to a key or a value
// read back cannot overwrite the write after it.
func TestLogReturnsCappedSlices(t *testing.T) {
	var l Log
	l.Append(nil, []byte("a"), []byte("1"), false)
	l.Append(nil, []byte("b"), []byte("2"), false)
	_ = append(l.Key(0), 'x')
	v, _ := l.Val(0)
	_ = append(v, 'y')
	if k, v := l.Key(1), mustVal(t, &l, 1); string(k) != "b" || string(v) != "2" {
		t.Fatalf("write 1 reads %q=%q after appends to write 0", k, v)
	}
}

func mustVal(t *testing.T, l *Log, i int32) []byte {
	t.Helper()
	v, ok := l.Val(i)
	if !ok {
		t.Fatalf("write %d is a deletion", i)
	}
	return v
}

// BenchmarkAppend measures appending 40-byte writes.
func BenchmarkAppend(b *testing.B) {
	k := []byte("0123456789abcdefghij")
	v := []byte("vvvvvvvvvvvvvvvvvvvv")
	b.ReportAllocs()
	var l Log
	for i := 0; b.Loop(); i++ {
		if i%(1<<20) == 0 {
			l = Log{}
		}
		l.Append(nil, k, v, false)
	}
}

// TestLogReset checks that a log emptied by Reset takes new writes, reads
// only those back, and writes them into the chunks it had, in order.
func TestLogReset(t *testing.T) {
	var l Log
	for i := range 1000 {
		l.Append([]byte("k"), fmt.Appendf(nil, "%d", i), bytes.Repeat([]byte("v"), 100), false)
	}
	var had []*byte
	for _, c := range l.chunks {
		had = append(had, &c[:1][0])
	}
	l.Reset()
	if l.Len() != 0 || l.Size() != 0 || len(l.chunks) != len(had) {
		t.Fatalf("after Reset: %d writes, %d bytes, %d chunks (had %d)", l.Len(), l.Size(), len(l.chunks), len(had))
	}
	l.Append(nil, []byte("a"), []byte("1"), false)
	l.Append(nil, []byte("b"), nil, true)
	if l.Len() != 2 || l.Size() != 3 || string(l.Key(0)) != "a" || string(l.Key(1)) != "b" {
		t.Fatalf("after Reset and two writes: %d writes, %d bytes, keys %q %q", l.Len(), l.Size(), l.Key(0), l.Key(1))
	}
	if _, ok := l.Val(1); ok {
		t.Fatal("the deletion reads as a put")
	}
	if &l.chunks[0][:1][0] != had[0] {
		t.Fatal("Reset did not keep the first chunk")
	}
	// Filling the log again moves through the chunks it had.
	for i := range 1000 {
		l.Append([]byte("k"), fmt.Appendf(nil, "%d", i), bytes.Repeat([]byte("w"), 100), false)
	}
	for i, c := range l.chunks[:len(had)] {
		if &c[:1][0] != had[i] {
			t.Fatalf("chunk %d is new after Reset", i)
		}
	}
	if len(l.chunks) != len(had) {
		t.Fatalf("%d chunks for the same writes, had %d", len(l.chunks), len(had))
	}
	for i := range 1000 {
		if k, v := l.Key(int32(2+i)), mustVal(t, &l, int32(2+i)); string(k) != fmt.Sprint("k", i) || len(v) != 100 || v[0] != 'w' {
			t.Fatalf("write %d: %q = %q", 2+i, k, v)
		}
	}
	// A write larger than the next chunk kept takes a chunk of its own.
	l.Reset()
	big := bytes.Repeat([]byte("x"), 3*MinChunk)
	l.Append(nil, []byte("a"), nil, false)
	for range cap(l.chunks[0]) / len(big) {
		l.Append(nil, []byte("b"), big, false)
	}
	l.Append(nil, []byte("c"), big, false)
	if v := mustVal(t, &l, int32(l.Len()-1)); !bytes.Equal(v, big) || string(l.Key(0)) != "a" {
		t.Fatal("a large write after Reset reads back wrong")
	}
}

// TestReleaseReusesChunks fills a log past its first chunks of MaxChunk
// bytes, releases it, and checks that the next log writes into those
// chunks, reads back what it wrote, and that the pool keeps no more than
// PoolBytes.
func TestReleaseReusesChunks(t *testing.T) {
	fill := func(l *Log, b byte, n int) {
		v := bytes.Repeat([]byte{b}, 1<<10)
		for i := range n {
			l.Append(nil, fmt.Appendf(nil, "k%07d", i), v, false)
		}
	}
	var l Log
	fill(&l, 1, 3*MaxChunk>>10)
	var big []*byte
	for _, c := range l.chunks {
		if cap(c) == MaxChunk {
			big = append(big, &c[:1][0])
		}
	}
	if len(big) == 0 {
		t.Fatal("no chunk of MaxChunk bytes")
	}
	start := PooledBytes()
	l.Release()
	if l.Len() != 0 || l.Size() != 0 || len(l.chunks) != 0 {
		t.Fatalf("released log holds %d writes, %d bytes, %d chunks", l.Len(), l.Size(), len(l.chunks))
	}
	if got := PooledBytes() - start; got != int64(len(big))*MaxChunk {
		t.Fatalf("pool gained %d bytes, want %d chunks", got, len(big))
	}

	var m Log
	fill(&m, 2, 3*MaxChunk>>10)
	reused := 0
	for _, c := range m.chunks {
		for _, p := range big {
			if cap(c) == MaxChunk && &c[:1][0] == p {
				reused++
			}
		}
	}
	if reused == 0 {
		t.Fatal("the next log took no chunk from the pool")
	}
	for i := range int32(m.Len()) {
		if v, _ := m.Val(i); v[0] != 2 || v[len(v)-1] != 2 {
			t.Fatalf("write %d reads back %d", i, v[0])
		}
	}

	// The pool keeps at most PoolBytes. (The chunks are never written:
	// their pages are not touched.)
	var x Log
	for range PoolBytes/MaxChunk + 8 {
		x.chunks = append(x.chunks, make([]byte, 0, MaxChunk))
	}
	x.Release()
	if got := PooledBytes(); got != PoolBytes {
		t.Fatalf("pool holds %d bytes, want its bound %d", got, PoolBytes)
	}
}

// TestRecordsNeverMove appends writes across many pages of records and
// checks that no record moves as the log grows (a growing slice would
// copy them all at each doubling), that Reset keeps the pages for the
// next writes, and that Release gives the full pages to the pool.
func TestRecordsNeverMove(t *testing.T) {
	var l Log
	n := 5*PageRecords + 7
	for i := range n {
		l.Append(nil, fmt.Appendf(nil, "%d", i), nil, i%3 == 0)
	}
	first, page1 := l.rec(0), l.rec(PageRecords)
	for i := range 3 * PageRecords {
		l.Append(nil, []byte("x"), []byte("y"), false)
		if i == 0 && l.rec(0) != first {
			t.Fatal("the first page moved")
		}
	}
	if l.rec(0) != first || l.rec(PageRecords) != page1 {
		t.Fatal("records moved as the log grew")
	}
	for _, i := range []int{0, 1, PageRecords - 1, PageRecords, n - 1} {
		if got := string(l.Key(int32(i))); got != fmt.Sprint(i) {
			t.Fatalf("write %d: key %q", i, got)
		}
		if _, ok := l.Val(int32(i)); ok == (i%3 == 0) {
			t.Fatalf("write %d: put %v", i, ok)
		}
	}
	pages := len(l.pages)
	l.Reset()
	for range 2 * PageRecords {
		l.Append(nil, []byte("k"), nil, false)
	}
	if len(l.pages) != pages || l.rec(0) != first || l.rec(PageRecords) != page1 {
		t.Fatalf("after Reset: %d pages (had %d), or new ones", len(l.pages), pages)
	}
	pooled := len(pool.pages)
	l.Release()
	if l.Len() != 0 || len(l.pages) != 0 {
		t.Fatalf("released log holds %d writes, %d pages", l.Len(), len(l.pages))
	}
	if len(pool.pages) != min(pooled+pages, PoolBytes/(PageRecords*recordBytes)) {
		t.Fatalf("pool has %d pages, had %d, the log %d", len(pool.pages), pooled, pages)
	}
	var m Log
	for range PageRecords + 1 {
		m.Append(nil, []byte("k"), nil, false)
	}
	if cap(m.pages[1]) != PageRecords || len(pool.pages) != min(pooled+pages, PoolBytes/(PageRecords*recordBytes))-1 {
		t.Fatal("a second page was not taken from the pool")
	}
	if cap(m.pages[0]) != PageRecords {
		t.Fatalf("the first page grew to %d records", cap(m.pages[0]))
	}
}
