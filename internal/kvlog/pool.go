package kvlog

import "sync"

// Chunks of released logs. A checkpoint buffers every write of its epoch
// in a log that lives until the epoch commits, and the next epoch's log
// grows to about the same size: without reuse, each epoch's chunks are
// fresh memory, which costs a page fault per 4 KiB on its first touch and
// garbage collection cycles that scan the whole heap, several times the
// cost of copying the bytes into them. Release hands a log's full-size
// chunks to a pool that the next logs draw from, so a job checkpointing at
// a steady rate writes into memory it already touched.
//
// The pool keeps at most PoolBytes: chunks released beyond it are left to
// the garbage collector. The pool is shared by every log of the process
// (all jobs' checkpoints); it holds only chunks of MaxChunk bytes, the
// size a log's chunks reach after its first 4 MiB, so a small log neither
// draws from it nor feeds it.

// PoolBytes bounds the bytes of chunks the pool keeps between logs, and
// again the bytes of pages of records (full pages only, as for chunks).
const PoolBytes = 256 << 20

var pool struct {
	mu    sync.Mutex
	free  [][]byte   // empty chunks of capacity MaxChunk
	pages [][]record // empty pages of capacity PageRecords
}

// takePage returns an empty page of records of capacity PageRecords from
// the pool, or nil when it has none.
func takePage() []record { return take(&pool.pages) }

// takeChunk returns an empty chunk of capacity MaxChunk from the pool, or
// nil when it has none.
func takeChunk() []byte { return take(&pool.free) }

// take pops the last of the pool's free slices in free, or returns nil
// when there is none.
func take[T any](free *[][]T) []T {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	n := len(*free)
	if n == 0 {
		return nil
	}
	s := (*free)[n-1]
	(*free)[n-1] = nil
	*free = (*free)[:n-1]
	return s
}

// Release empties the log and gives its chunks of MaxChunk bytes and its
// full pages of records to the pool, up to PoolBytes of each. Keys and
// values read from the log must not be used after it: their bytes will be
// overwritten by other logs.
func (l *Log) Release() {
	pool.mu.Lock()
	for _, c := range l.chunks {
		if cap(c) == MaxChunk && len(pool.free) < PoolBytes/MaxChunk {
			pool.free = append(pool.free, c[:0])
		}
	}
	for _, pg := range l.pages {
		if cap(pg) == PageRecords && len(pool.pages) < PoolBytes/(PageRecords*recordBytes) {
			pool.pages = append(pool.pages, pg[:0])
		}
	}
	pool.mu.Unlock()
	clear(l.chunks)
	clear(l.pages)
	l.chunks, l.pages, l.cur, l.n, l.size = l.chunks[:0], l.pages[:0], 0, 0, 0
}

// PooledBytes returns the bytes of the chunks the pool holds.
func PooledBytes() int64 {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	return int64(len(pool.free)) * MaxChunk
}
