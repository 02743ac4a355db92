package storagetest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/storage"
)

// checked returns an allocator that fails the test if buffers leak.
func checked(t *testing.T) *memory.CheckedAllocator {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { alloc.AssertSize(t, 0) })
	return alloc
}

// appendEvents appends n batches of rows rows to stream, batch i starting
// at row i*rows.
func appendEvents(t testing.TB, log storage.Log, stream uint64, n, rows int) {
	t.Helper()
	for i := range n {
		b := EventBatch(memory.DefaultAllocator, i*rows, rows)
		seq, err := log.Append(stream, b)
		b.Release()
		must(t, err)
		if end, _ := log.End(stream); seq != end-1 {
			t.Fatalf("Append returned seq %d, End is %d", seq, end)
		}
	}
}

// checkEvents reads stream's entries [from, to) and checks they are the
// batches appendEvents wrote.
func checkEvents(t *testing.T, log storage.Log, stream uint64, from, to uint64, rows int) {
	t.Helper()
	alloc := checked(t)
	want := from
	next, err := log.Read(context.Background(), stream, from, to, EventSchema, alloc,
		func(seq uint64, got arrow.RecordBatch) error {
			if seq != want {
				t.Fatalf("Read gave seq %d, want %d", seq, want)
			}
			exp := EventBatch(memory.DefaultAllocator, int(seq)*rows, rows)
			defer exp.Release()
			if !array.RecordEqual(exp, got) {
				t.Fatalf("stream %d entry %d differs:\n got %v\nwant %v", stream, seq, got, exp)
			}
			want++
			return nil
		})
	must(t, err)
	if next != want {
		t.Fatalf("Read returned next %d after delivering up to %d", next, want)
	}
}

func runLog(t *testing.T, h Harness) {
	ctx := context.Background()
	t.Run("AppendRead", func(t *testing.T) {
		log := open(t, h).Log()
		if end, err := log.End(7); end != 0 || err != nil {
			t.Fatalf("End of a new stream = %d, %v", end, err)
		}
		appendEvents(t, log, 7, 5, 100)
		checkEvents(t, log, 7, 0, math.MaxUint64, 100)
		checkEvents(t, log, 7, 2, 4, 100)
		checkEvents(t, log, 7, 4, 100, 100)
		if next, err := log.Read(ctx, 7, 9, 20, EventSchema, checked(t), nil); next != 9 || err != nil {
			t.Fatalf("Read past the end = %d, %v", next, err)
		}
		stop := errors.New("stop")
		n := 0
		next, err := log.Read(ctx, 7, 1, 5, EventSchema, checked(t), func(seq uint64, b arrow.RecordBatch) error {
			if n++; seq == 3 {
				return stop
			}
			return nil
		})
		if err != stop || next != 3 || n != 3 {
			t.Fatalf("Read with fn failing on seq 3 = %d, %v after %d calls", next, err, n)
		}
	})

	t.Run("RetainedBatch", func(t *testing.T) {
		log := open(t, h).Log()
		appendEvents(t, log, 1, 3, 10)
		alloc := checked(t)
		var kept []arrow.RecordBatch
		_, err := log.Read(ctx, 1, 0, 3, EventSchema, alloc, func(_ uint64, b arrow.RecordBatch) error {
			b.Retain()
			kept = append(kept, b)
			return nil
		})
		must(t, err)
		for i, b := range kept {
			exp := EventBatch(memory.DefaultAllocator, i*10, 10)
			if !array.RecordEqual(exp, b) {
				t.Fatalf("retained batch %d changed", i)
			}
			exp.Release()
			b.Release()
		}
	})

	t.Run("StreamsAreIsolated", func(t *testing.T) {
		log := open(t, h).Log()
		appendEvents(t, log, 1, 3, 10)
		appendEvents(t, log, 256, 2, 10)
		appendEvents(t, log, 1<<56, 1, 10)
		for stream, want := range map[uint64]uint64{1: 3, 256: 2, 1 << 56: 1, 2: 0} {
			if end, _ := log.End(stream); end != want {
				t.Fatalf("End(%d) = %d, want %d", stream, end, want)
			}
			checkEvents(t, log, stream, 0, math.MaxUint64, 10)
		}
	})

	t.Run("Drop", func(t *testing.T) {
		log := open(t, h).Log()
		appendEvents(t, log, 1, 3, 10)
		appendEvents(t, log, 2, 3, 10)
		must(t, log.Drop(1))
		must(t, log.Drop(99)) // never written
		if end, _ := log.End(1); end != 0 {
			t.Fatalf("End after Drop = %d", end)
		}
		if next, err := log.Read(ctx, 1, 0, math.MaxUint64, EventSchema, checked(t), nil); next != 0 || err != nil {
			t.Fatalf("Read after Drop = %d, %v", next, err)
		}
		checkEvents(t, log, 2, 0, math.MaxUint64, 10)
		appendEvents(t, log, 1, 2, 10) // starts again at seq 0
		checkEvents(t, log, 1, 0, math.MaxUint64, 10)
	})

	t.Run("Persistence", func(t *testing.T) {
		db := open(t, h)
		appendEvents(t, db.Log(), 3, 4, 50)
		appendEvents(t, db.Log(), 4, 1, 50)
		must(t, db.Log().Drop(4))
		db = reopen(t, h, db)
		if end, _ := db.Log().End(3); end != 4 {
			t.Fatalf("End after reopen = %d, want 4", end)
		}
		checkEvents(t, db.Log(), 3, 0, math.MaxUint64, 50)
		if end, _ := db.Log().End(4); end != 0 {
			t.Fatalf("a dropped stream has End %d after reopen", end)
		}
		b := EventBatch(memory.DefaultAllocator, 4*50, 50)
		defer b.Release()
		if seq, err := db.Log().Append(3, b); seq != 4 || err != nil {
			t.Fatalf("Append after reopen = %d, %v", seq, err)
		}
	})

	t.Run("AppendMarked", func(t *testing.T) {
		db := open(t, h)
		b := EventBatch(memory.DefaultAllocator, 0, 50)
		defer b.Release()
		if seq, err := db.Log().AppendMarked(7, b, []byte("mark/7"), []byte("one")); seq != 0 || err != nil {
			t.Fatalf("AppendMarked = %d, %v", seq, err)
		}
		big := EventBatch(memory.DefaultAllocator, 50, 100_000) // several chunks in Badger
		defer big.Release()
		if seq, err := db.Log().AppendMarked(7, big, []byte("mark/7"), []byte("two")); seq != 1 || err != nil {
			t.Fatalf("AppendMarked = %d, %v", seq, err)
		}
		db = reopen(t, h, db)
		if end, _ := db.Log().End(7); end != 2 {
			t.Fatalf("End after reopen = %d, want 2", end)
		}
		val, ok, err := db.KV().Get([]byte("mark/7"))
		if err != nil || !ok || string(val) != "two" {
			t.Fatalf("the mark after reopen is %q, %v, %v; want two", val, ok, err)
		}
	})

	t.Run("LargeBatch", func(t *testing.T) {
		log := open(t, h).Log()
		const rows = 100_000
		big := EventBatch(memory.DefaultAllocator, 0, rows)
		defer big.Release()
		wide := WideBatch(memory.DefaultAllocator, rand.New(rand.NewPCG(1, 2)), rows/4)
		defer wide.Release()
		for i := range 2 {
			_, err := log.Append(5, big)
			must(t, err)
			_, err = log.Append(6, wide)
			must(t, err)
			if i == 0 { // a small entry between large ones
				small := EventBatch(memory.DefaultAllocator, 0, 1)
				_, err = log.Append(5, small)
				small.Release()
				must(t, err)
			}
		}
		alloc := checked(t)
		rowsRead := 0
		_, err := log.Read(ctx, 5, 0, 3, EventSchema, alloc, func(seq uint64, b arrow.RecordBatch) error {
			rowsRead += int(b.NumRows())
			if seq != 1 && !array.RecordEqual(big, b) {
				t.Fatalf("large entry %d differs", seq)
			}
			return nil
		})
		must(t, err)
		if rowsRead != 2*rows+1 {
			t.Fatalf("read %d rows, want %d", rowsRead, 2*rows+1)
		}
		_, err = log.Read(ctx, 6, 0, 2, WideSchema, alloc, func(seq uint64, b arrow.RecordBatch) error {
			if !array.RecordEqual(wide, b) {
				t.Fatalf("wide entry %d differs", seq)
			}
			return nil
		})
		must(t, err)
	})

	t.Run("SlicedAndEmptyBatches", func(t *testing.T) {
		log := open(t, h).Log()
		wide := WideBatch(memory.DefaultAllocator, rand.New(rand.NewPCG(3, 4)), 100)
		defer wide.Release()
		slices := []arrow.RecordBatch{wide.NewSlice(3, 50), wide.NewSlice(17, 17), wide.NewSlice(99, 100)}
		for _, s := range slices {
			_, err := log.Append(1, s)
			must(t, err)
		}
		_, err := log.Read(ctx, 1, 0, 3, WideSchema, checked(t), func(seq uint64, b arrow.RecordBatch) error {
			if !array.RecordEqual(slices[seq], b) {
				t.Fatalf("slice %d differs:\n got %v\nwant %v", seq, b, slices[seq])
			}
			return nil
		})
		must(t, err)
		for _, s := range slices {
			s.Release()
		}
	})

	t.Run("Corrupt", func(t *testing.T) {
		db := open(t, h)
		appendEvents(t, db.Log(), 9, 3, 100)
		h.Corrupt(t, db, 9, 1)
		seen := 0
		next, err := db.Log().Read(ctx, 9, 0, 3, EventSchema, checked(t), func(uint64, arrow.RecordBatch) error {
			seen++
			return nil
		})
		var ce *storage.CorruptEntryError
		if !errors.As(err, &ce) || ce.Stream != 9 || ce.Seq != 1 || !errors.Is(err, storage.ErrCorrupt) {
			t.Fatalf("Read of a corrupt entry = %v, want a CorruptEntryError for stream 9 seq 1", err)
		}
		if next != 1 || seen != 1 {
			t.Fatalf("Read stopped at %d after %d entries, want 1 and 1", next, seen)
		}
		checkEvents(t, db.Log(), 9, 2, 3, 100) // the others still read
	})

	t.Run("WrongSchema", func(t *testing.T) {
		log := open(t, h).Log()
		appendEvents(t, log, 1, 1, 10)
		_, err := log.Read(ctx, 1, 0, 1, WideSchema, checked(t), func(uint64, arrow.RecordBatch) error { return nil })
		var ce *storage.CorruptEntryError
		if !errors.As(err, &ce) || ce.Seq != 0 {
			t.Fatalf("Read with the wrong schema = %v", err)
		}
	})

	t.Run("UnsupportedType", func(t *testing.T) {
		log := open(t, h).Log()
		lb := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64)
		defer lb.Release()
		lb.Append(true)
		arr := lb.NewArray()
		defer arr.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arr.DataType()}}, nil)
		b := array.NewRecordBatch(schema, []arrow.Array{arr}, 1)
		defer b.Release()
		if _, err := log.Append(1, b); !errors.Is(err, storage.ErrUnsupportedType) {
			t.Fatalf("Append of a list column = %v", err)
		}
		if end, _ := log.End(1); end != 0 {
			t.Fatalf("a failed Append moved End to %d", end)
		}
	})

	t.Run("ReadCanceled", func(t *testing.T) {
		log := open(t, h).Log()
		appendEvents(t, log, 1, 3, 10)
		cctx, cancel := context.WithCancel(ctx)
		next, err := log.Read(cctx, 1, 0, 3, EventSchema, checked(t), func(uint64, arrow.RecordBatch) error {
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) || next != 1 {
			t.Fatalf("Read canceled after the first entry = %d, %v", next, err)
		}
	})

	t.Run("Wait", func(t *testing.T) {
		db := open(t, h)
		log := db.Log()
		appendEvents(t, log, 1, 1, 10)
		must(t, log.Wait(ctx, 1, 0)) // End is 1 > 0: returns at once

		done := make(chan error, 1)
		go func() { done <- log.Wait(ctx, 1, 1) }()
		select {
		case err := <-done:
			t.Fatalf("Wait returned before an Append: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		appendEvents(t, log, 1, 1, 10)
		if err := <-done; err != nil {
			t.Fatalf("Wait after Append = %v", err)
		}

		cctx, cancel := context.WithCancel(ctx)
		go func() { done <- log.Wait(cctx, 1, 5) }()
		time.Sleep(10 * time.Millisecond)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait after cancel = %v", err)
		}

		go func() { done <- log.Wait(ctx, 2, 0) }()
		time.Sleep(10 * time.Millisecond)
		must(t, db.Close())
		if err := <-done; !errors.Is(err, storage.ErrClosed) {
			t.Fatalf("Wait after Close = %v", err)
		}
	})
}
