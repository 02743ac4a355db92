package badger

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/storagetest"
)

func appendRows(t *testing.T, db *DB, stream uint64, rows int) uint64 {
	t.Helper()
	b := storagetest.EventBatch(memory.DefaultAllocator, 0, rows)
	defer b.Release()
	seq, err := db.Log().Append(stream, b)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

func readAll(t *testing.T, db *DB, stream uint64) (rows []int64, err error) {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	_, err = db.Log().Read(context.Background(), stream, 0, math.MaxUint64, storagetest.EventSchema, alloc,
		func(_ uint64, b arrow.RecordBatch) error {
			rows = append(rows, b.NumRows())
			return nil
		})
	return rows, err
}

func setRaw(t *testing.T, db *DB, key, val []byte) {
	t.Helper()
	if err := db.bdb.Update(func(txn *bdg.Txn) error { return txn.Set(key, val) }); err != nil {
		t.Fatal(err)
	}
}

// TestLeftoverChunks checks that chunks no chunk 0 claims — what a crash
// in the middle of a large append leaves — are ignored, by End after a
// restart and by Read after the seq is reused.
func TestLeftoverChunks(t *testing.T) {
	dir := t.TempDir()
	db := openDir(t, dir)
	appendRows(t, db, 1, 10)
	appendRows(t, db, 1, 100_000) // several chunks
	for chunk := uint32(1); chunk <= 12; chunk++ {
		setRaw(t, db, logKey(1, 1, chunk+20), []byte("stale chunk past the entry's count"))
		setRaw(t, db, logKey(1, 2, chunk), []byte("chunk of an append that never finished"))
	}
	db.Close()
	db = openDir(t, dir)
	defer db.Close()
	if end, _ := db.Log().End(1); end != 2 {
		t.Fatalf("End = %d, want 2", end)
	}
	appendRows(t, db, 1, 5) // seq 2 again, one chunk
	rows, err := readAll(t, db, 1)
	if err != nil || len(rows) != 3 || rows[0] != 10 || rows[1] != 100_000 || rows[2] != 5 {
		t.Fatalf("Read = %v, %v", rows, err)
	}
}

func TestMissingChunk(t *testing.T) {
	db := openDir(t, t.TempDir())
	defer db.Close()
	appendRows(t, db, 4, 10)
	appendRows(t, db, 4, 100_000)
	if err := db.bdb.Update(func(txn *bdg.Txn) error { return txn.Delete(logKey(4, 1, 2)) }); err != nil {
		t.Fatal(err)
	}
	_, err := readAll(t, db, 4)
	var ce *storage.CorruptEntryError
	if !errors.As(err, &ce) || ce.Stream != 4 || ce.Seq != 1 {
		t.Fatalf("Read with a chunk missing = %v", err)
	}
}

func TestBadChunkHeader(t *testing.T) {
	db := openDir(t, "")
	defer db.Close()
	appendRows(t, db, 2, 10)
	for _, val := range [][]byte{nil, {0x80}, {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {0, 0}, {5, 3, 1, 2, 3}} {
		setRaw(t, db, logKey(2, 0, 0), val)
		_, err := readAll(t, db, 2)
		var ce *storage.CorruptEntryError
		if !errors.As(err, &ce) || ce.Seq != 0 {
			t.Fatalf("Read with chunk 0 = %x gave %v", val, err)
		}
	}
}

// TestDropLargeLog drops a log with more keys than one transaction may
// delete, which takes the DropPrefix path, while other writes go on.
func TestDropLargeLog(t *testing.T) {
	db := openDir(t, t.TempDir())
	defer db.Close()
	appendRows(t, db, 1, 10)
	wb := db.bdb.NewWriteBatch()
	for seq := uint64(0); seq <= smallDrop; seq++ {
		if err := wb.Set(logKey(7, seq, 0), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	if end, _ := db.Log().End(7); end != smallDrop+1 {
		t.Fatalf("End = %d", end)
	}
	stop := make(chan struct{})
	writes := make(chan error, 1)
	go func() {
		defer close(writes)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := db.KV().Put([]byte("k"), []byte("v")); err != nil {
				writes <- err
				return
			}
		}
	}()
	if err := db.Log().Drop(7); err != nil {
		t.Fatal(err)
	}
	close(stop)
	for err := range writes {
		t.Fatalf("a write during Drop failed: %v", err)
	}
	if end, _ := db.Log().End(7); end != 0 {
		t.Fatalf("End after Drop = %d", end)
	}
	left := 0
	db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: logPrefix(7)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			left++
		}
		return nil
	})
	if left != 0 {
		t.Fatalf("%d keys left after Drop", left)
	}
	if rows, err := readAll(t, db, 1); err != nil || len(rows) != 1 {
		t.Fatalf("the other stream after Drop: %v, %v", rows, err)
	}
}
