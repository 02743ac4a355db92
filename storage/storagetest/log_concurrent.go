package storagetest

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// runLogConcurrent has writers append to several streams (two writers
// share one stream) while tailing readers Wait and Read them, and checks
// that every reader sees every batch exactly once, in order, with seqs
// handed out without gaps or duplicates.
func runLogConcurrent(t *testing.T, h Harness) {
	const (
		streams   = 3
		perWriter = 40
		rows      = 64
	)
	log := open(t, h).Log()
	ctx := context.Background()
	alloc := checked(t)
	// Stream s has s+1 writers; writer w writes rows whose id encodes
	// (w, i), so a reader can tell the writers' batches apart.
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for s := range uint64(streams) {
		writers := int(s) + 1
		for w := range writers {
			wg.Go(func() {
				for i := range perWriter {
					b := EventBatch(memory.DefaultAllocator, (w*perWriter+i)*rows, rows)
					_, err := log.Append(s, b)
					b.Release()
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		for range 2 {
			wg.Go(func() {
				total := uint64(writers * perWriter)
				seen := map[int64]bool{}
				lastPerWriter := make([]int, writers)
				for i := range lastPerWriter {
					lastPerWriter[i] = -1
				}
				var next uint64
				for next < total {
					if err := log.Wait(ctx, s, next); err != nil {
						errs <- err
						return
					}
					var err error
					next, err = log.Read(ctx, s, next, math.MaxUint64, EventSchema, alloc,
						func(seq uint64, b arrow.RecordBatch) error {
							first := b.Column(0).(*array.Int64).Value(0)
							w, i := int(first)/rows/perWriter, int(first)/rows%perWriter
							if seen[first] || b.NumRows() != rows || w >= writers || i != lastPerWriter[w]+1 {
								return fmt.Errorf("stream %d seq %d: unexpected batch (writer %d, batch %d)", s, seq, w, i)
							}
							seen[first] = true
							lastPerWriter[w] = i
							return nil
						})
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for s := range uint64(streams) {
		if end, _ := log.End(s); end != (s+1)*perWriter {
			t.Errorf("End(%d) = %d, want %d", s, end, (s+1)*perWriter)
		}
	}
}

// runDropWhileWriting drops a stream over and over while other streams,
// the KV and a state store are written: a Drop must not make their writes
// fail (Badger refuses writes during a prefix drop unless kept apart).
func runDropWhileWriting(t *testing.T, h Harness) {
	db := open(t, h)
	s := state(t, db, "job")
	tbl := table(t, s, "t")
	ctx := context.Background()
	batch := EventBatch(memory.DefaultAllocator, 0, 100)
	defer batch.Release()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	report := func(err error) bool {
		if err != nil {
			errs <- err
		}
		return err != nil
	}
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for range 8 {
			for range 3 {
				if _, err := db.Log().Append(9, batch); report(err) {
					return
				}
			}
			if report(db.Log().Drop(9)) {
				return
			}
		}
	})
	wg.Go(func() {
		for i := uint64(1); ; i++ {
			select {
			case <-done:
				return
			default:
			}
			_, err := db.Log().Append(1, batch)
			if report(err) || report(db.KV().Put([]byte("k"), []byte("v"))) ||
				report(tbl.Put([]byte("k"), []byte("v"))) || report(s.Commit(ctx, i)) {
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if end, _ := db.Log().End(9); end != 0 {
		t.Errorf("End after the last Drop = %d", end)
	}
}
