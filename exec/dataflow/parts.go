package dataflow

import (
	"context"
	"fmt"

	"github.com/eddysql/eddy/exec"
)

// A hash exchange partitions each chunk its producer emits into one part
// per consumer instance. By default a part is copied into a chunk of its
// own (exec.TakeRows) on the producer's thread, and the consumer reads the
// copy from the other core. A consumer whose first operator takes parts
// where they lie (exec.PartsProcessor) is sent the producer's chunks,
// retained, with the rows that are its own instead: the rows cross the
// cores once, and nothing writes them twice. q19's Top-N reads every
// column of every bid, so at parallelism 2 the copy was a tenth of the
// query's CPU.

// release releases the batches the message holds.
func (m *message) release() {
	if m.chunk.Batch != nil {
		m.chunk.Batch.Release()
	}
	for _, p := range m.parts {
		p.Batch.Release()
	}
}

// size is what the message's batches hold allocated. A part counts its
// whole chunk: the chunk stays allocated until every consumer that holds a
// part of it has processed it, so counting it whole keeps the buffer
// budget a bound on memory (at the price of counting a chunk shared by P
// consumers P times).
func (m *message) size() int64 {
	n := batchBytes(m.chunk.Batch)
	for _, p := range m.parts {
		n += batchBytes(p.Batch)
	}
	return n
}

// takesParts reports whether a task with the chain ops, reading an inbox,
// has its first operator take an exchange's parts in place.
func takesParts(ops []exec.Operator) bool {
	if len(ops) == 0 {
		return false
	}
	p, ok := ops[0].(exec.PartsProcessor)
	return ok && p.TakesParts()
}

// sendParts sends consumer dst the rows sels[k] of chunks[k], part after
// part: as they lie when the consumer takes parts (the message owns the
// chunks, which the caller retained for it, and a copy of sels), else
// taken into one chunk (and the chunks released).
func (w *outWriter) sendParts(ctx context.Context, dst int, chunks []exec.Chunk, sels [][]int32) error {
	var m message
	if w.inboxes[dst].takesParts {
		n := 0
		for _, s := range sels {
			n += len(s)
		}
		rows := make([]int32, 0, n)
		m.parts = append(make([]exec.Chunk, 0, len(chunks)), chunks...)
		m.sels = make([][]int32, len(sels))
		for k, s := range sels {
			from := len(rows)
			rows = append(rows, s...)
			m.sels[k] = rows[from:len(rows):len(rows)]
		}
	} else {
		var err error
		if len(chunks) == 1 {
			m.chunk, err = exec.TakeRows(w.alloc, chunks[0], sels[0])
		} else {
			m.chunk, err = exec.TakeRowsParts(w.alloc, chunks, sels)
		}
		for _, c := range chunks {
			c.Batch.Release()
		}
		if err != nil {
			return err
		}
	}
	if err := w.send(ctx, dst, m); err != nil {
		m.release()
		return err
	}
	return nil
}

// processParts hands the parts of a message to the chain's first operator,
// which takes parts (takesParts).
func (c *chain) processParts(ctx context.Context, input int, parts []exec.Chunk, sels [][]int32) error {
	p, ok := c.ops[0].(exec.PartsProcessor)
	if !ok {
		return fmt.Errorf("dataflow: %T was sent parts it does not take", c.ops[0])
	}
	m := c.metrics[0]
	rows := 0
	for _, s := range sels {
		rows += len(s)
	}
	m.RowsIn.Add(int64(rows))
	m.BatchesIn.Add(1)
	em := c.emitters[0]
	call := em.begin()
	err := p.ProcessParts(ctx, input, parts, sels, em)
	em.end(m, call)
	if err == nil && c.state != nil {
		err = c.state.settle(0, m)
	}
	return err
}
