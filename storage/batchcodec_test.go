package storage_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/storagetest"
)

func roundTrip(t *testing.T, b arrow.RecordBatch) {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	enc, err := storage.EncodeBatch(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := storage.DecodeBatch(enc, b.Schema(), alloc)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if !array.RecordEqual(b, got) {
		t.Fatalf("round trip changed the batch:\n got %v\nwant %v", got, b)
	}
}

func TestBatchRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, rows := range []int{0, 1, 7, 8, 9, 1000} {
		b := storagetest.WideBatch(memory.DefaultAllocator, r, rows)
		roundTrip(t, b)
		// Slices start at bit offsets that are not byte aligned.
		for _, off := range []int64{0, 1, 3, 8, 13} {
			if off <= int64(rows) {
				s := b.NewSlice(off, int64(rows))
				roundTrip(t, s)
				s.Release()
			}
		}
		b.Release()
	}
	e := storagetest.EventBatch(memory.DefaultAllocator, 0, 4096)
	roundTrip(t, e)
	e.Release()
}

func TestBatchSchemaMismatch(t *testing.T) {
	b := storagetest.EventBatch(memory.DefaultAllocator, 0, 10)
	defer b.Release()
	enc, _ := storage.EncodeBatch(nil, b)
	fields := storagetest.EventSchema.Fields()
	swapped := append([]arrow.Field{fields[3]}, fields[1:3]...)
	swapped = append(swapped, fields[0], fields[4])
	for name, s := range map[string]*arrow.Schema{
		"fewer columns":  arrow.NewSchema(fields[:4], nil),
		"other layouts":  arrow.NewSchema(swapped, nil),
		"other widths":   arrow.NewSchema(append([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, fields[1:]...), nil),
		"unsupported":    arrow.NewSchema(append([]arrow.Field{{Name: "x", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, fields[1:]...), nil),
		"same layout ok": arrow.NewSchema(append([]arrow.Field{{Name: "x", Type: arrow.FixedWidthTypes.Duration_s}}, fields[1:]...), nil),
	} {
		got, err := storage.DecodeBatch(enc, s, memory.DefaultAllocator)
		if name == "same layout ok" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else {
				got.Release()
			}
			continue
		}
		if !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("%s: DecodeBatch = %v, want ErrCorrupt", name, err)
		}
	}
}

// touch reads every value of b, so that a batch with bad buffers panics
// here rather than in an operator.
func touch(b arrow.RecordBatch) {
	for _, c := range b.Columns() {
		for i := range c.Len() {
			_ = c.ValueStr(i)
		}
	}
}

// TestBatchDamage damages encodings in many ways; DecodeBatch must either
// fail with ErrCorrupt or return a batch whose values can all be read.
func TestBatchDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	b := storagetest.WideBatch(memory.DefaultAllocator, r, 40)
	defer b.Release()
	enc, _ := storage.EncodeBatch(nil, b)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	check := func(data []byte) {
		t.Helper()
		got, err := storage.DecodeBatch(data, storagetest.WideSchema, alloc)
		if err != nil {
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		touch(got)
		got.Release()
	}
	for n := range len(enc) {
		check(enc[:n])
	}
	for range 5000 {
		data := append([]byte(nil), enc...)
		for range 1 + r.IntN(3) {
			data[r.IntN(len(data))] = byte(r.Uint32())
		}
		check(data)
	}
}

func FuzzDecodeBatch(f *testing.F) {
	b := storagetest.WideBatch(memory.DefaultAllocator, rand.New(rand.NewPCG(1, 1)), 5)
	enc, _ := storage.EncodeBatch(nil, b)
	b.Release()
	f.Add(enc)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := storage.DecodeBatch(data, storagetest.WideSchema, memory.DefaultAllocator)
		if err == nil {
			touch(got)
			got.Release()
		}
	})
}

func BenchmarkBatchCodec(b *testing.B) {
	batch := storagetest.EventBatch(memory.DefaultAllocator, 0, storagetest.BenchRows)
	defer batch.Release()
	enc, _ := storage.EncodeBatch(nil, batch)
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(enc)))
		buf := make([]byte, 0, len(enc))
		for b.Loop() {
			buf, _ = storage.EncodeBatch(buf[:0], batch)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(enc)))
		alloc := memory.NewGoAllocator()
		for b.Loop() {
			got, err := storage.DecodeBatch(enc, storagetest.EventSchema, alloc)
			if err != nil {
				b.Fatal(err)
			}
			got.Release()
		}
	})
}
