package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
)

// batchesSource is a bounded source of record batches taken when it was
// made: a pull query's read of a materialized view (mview.View.Batches),
// whose batches mostly share the view's memory.
type batchesSource struct {
	batches []arrow.RecordBatch
}

var _ exec.Source = (*batchesSource)(nil)

// Open implements exec.Source.
func (b *batchesSource) Open(ctx context.Context, env *exec.Env) error { return nil }

// Next implements exec.Source: it hands over the next batch.
func (b *batchesSource) Next(ctx context.Context) (exec.Chunk, error) {
	if len(b.batches) == 0 {
		return exec.Chunk{}, io.EOF
	}
	rec := b.batches[0]
	b.batches[0] = nil
	b.batches = b.batches[1:]
	return exec.Chunk{Batch: rec}, nil
}

// Wait implements exec.Source.
func (b *batchesSource) Wait(ctx context.Context) error { return nil }

// Close implements exec.Source: it releases the batches not read.
func (b *batchesSource) Close() error {
	for _, rec := range b.batches {
		rec.Release()
	}
	b.batches = nil
	return nil
}
