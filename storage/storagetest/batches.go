package storagetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/storage"
)

// EventSchema is the benchmark's five-column schema: three int64 columns,
// a string and a millisecond timestamp.
var EventSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
	{Name: "price", Type: arrow.PrimitiveTypes.Int64},
	{Name: "channel", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
}, nil)

// EventBatch returns rows rows of EventSchema whose values derive from
// start, with every 16th channel null. The caller releases it.
func EventBatch(alloc memory.Allocator, start, rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(alloc, EventSchema)
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	auctions := b.Field(1).(*array.Int64Builder)
	prices := b.Field(2).(*array.Int64Builder)
	channels := b.Field(3).(*array.StringBuilder)
	ts := b.Field(4).(*array.TimestampBuilder)
	b.Reserve(rows)
	for i := start; i < start+rows; i++ {
		ids.UnsafeAppend(int64(i))
		auctions.UnsafeAppend(int64(i % 1000))
		prices.UnsafeAppend(int64(i*37%100000 + 1))
		if i%16 == 0 {
			channels.AppendNull()
		} else {
			channels.Append(fmt.Sprintf("channel-%d", i%97))
		}
		ts.UnsafeAppend(arrow.Timestamp(1_700_000_000_000 + int64(i)))
	}
	return b.NewRecordBatch()
}

// WideSchema has a column of every type family the batch codec supports.
var WideSchema = arrow.NewSchema([]arrow.Field{
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true},
	{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "dur", Type: arrow.FixedWidthTypes.Duration_ms, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "n", Type: arrow.Null, Nullable: true},
}, nil)

// WideBatch returns rows random rows of WideSchema, about a quarter of
// them null in each column. The caller releases it.
func WideBatch(alloc memory.Allocator, r *rand.Rand, rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(alloc, WideSchema)
	defer b.Release()
	for range rows {
		for c, f := range b.Fields() {
			if c == len(b.Fields())-1 || r.IntN(4) == 0 {
				f.AppendNull()
				continue
			}
			switch f := f.(type) {
			case *array.BooleanBuilder:
				f.Append(r.IntN(2) == 0)
			case *array.Int8Builder:
				f.Append(int8(r.Int()))
			case *array.Int64Builder:
				f.Append(r.Int64() - r.Int64())
			case *array.Float64Builder:
				f.Append(r.NormFloat64() * 1e6)
			case *array.Decimal128Builder:
				f.Append(decimal128.New(r.Int64N(1000)-500, r.Uint64()))
			case *array.Date32Builder:
				f.Append(arrow.Date32(r.Int32N(40000)))
			case *array.DurationBuilder:
				f.Append(arrow.Duration(r.Int64N(1e9)))
			case *array.StringBuilder:
				f.Append(randString(r))
			case *array.BinaryBuilder:
				f.Append([]byte(randString(r)))
			case *array.LargeStringBuilder:
				f.Append(randString(r))
			}
		}
	}
	return b.NewRecordBatch()
}

func randString(r *rand.Rand) string {
	b := make([]byte, r.IntN(20))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}

// BenchRows is the benchmark's batch size.
const BenchRows = 4096

// BenchLogAppendRead measures appending BenchRows-row EventSchema batches
// to a log (each Append durable when it returns, as the DB is configured)
// and reading them back, reporting rows/s for each.
func BenchLogAppendRead(b *testing.B, db storage.DB) {
	batch := EventBatch(memory.DefaultAllocator, 0, BenchRows)
	defer batch.Release()
	log := db.Log()
	const stream = 1
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := log.Append(stream, batch); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*BenchRows)/b.Elapsed().Seconds(), "rows/s")
	})
	// Read needs entries: make sure there are at least readEntries.
	const readEntries = 256
	for end, _ := log.End(stream); end < readEntries; end++ {
		if _, err := log.Append(stream, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		alloc := memory.NewGoAllocator()
		rows := 0
		for b.Loop() {
			_, err := log.Read(context.Background(), stream, 0, readEntries, EventSchema, alloc,
				func(_ uint64, rec arrow.RecordBatch) error {
					rows += int(rec.NumRows())
					return nil
				})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
}
