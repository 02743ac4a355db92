package over

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/exec/internal/rowset"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// The window aggregate's checkpoints (exec.Stateful). Its state is the
// rows of its partitions (the output is recomputed from them), so each
// distinct row is one entry, in the key group of its partition, computed by
// exec.HashRows over the PARTITION BY columns as the hash exchange in
// front of the operator computes it (without PARTITION BY, the instance's
// first key group):
//
//   - key: the length of the row's partition key (a uvarint), the
//     partition key, then the row's sort key (ordtree's encodings; together
//     they name the distinct row);
//   - value: the row's copies and values (rowset.EncodeRow), the values
//     being those the output shows (a double's -0, which the keys encode as
//     0).
//
// An entry per row, not per partition: a partition's entry would be
// rewritten whole when one of its rows changes, so a snapshot would cost
// the partitions a checkpoint touched, however large, rather than the rows
// it changed.
//
// A snapshot writes only the rows that changed: a row whose copies change
// is marked by its row store id (a bit and a list, in the loop that applies
// a chunk's changes to the trees), and a row that loses its last copy
// records its entry key for a Delete once a snapshot has been taken. The
// snapshot, written in steps after the barrier (snapshot.go), gathers the marked rows still held (a bit per row id says which
// ids are in use) from the row store and encodes their partition and sort
// keys and hashes their key groups from those values, as a restore does,
// then finds each row's copies in its partition's tree: the bookkeeping
// kept per row between checkpoints is two bits, not a reference to the
// row's partition and key, which every row would pay for (in memory, and
// in the garbage collector's work) whether or not checkpoints are taken.

// errRestore is wrapped by every error of a restore.
var errRestore = errors.New("window aggregate: restore")

// snapshotBatch is the number of rows a snapshot gathers or a restore
// builds at once.
const snapshotBatch = 1024

// checkpoint is the operator's checkpoint bookkeeping.
type checkpoint struct {
	inUse   []uint64 // by row id: the id holds a row
	bits    []uint64 // by row id: changed since the last snapshot
	ids     []int32  // the ids changed, possibly freed since (then not in use)
	delKeys []byte   // the entry keys of the rows gone, concatenated
	delEnds []int    // the end of each in delKeys
	delKGs  []int32  // and its key group
	written bool     // a snapshot was taken or restored: deletions must be written

	hashes []uint64 // by row of the chunk: its hash, once hashed
	hashed bool     // hashes holds the current chunk's
	pcols  []arrow.Array

	// Snapshot's and Restore's scratch.
	live  []int32
	cols  []arrow.Array
	vals  []types.Datum
	rows  [][]types.Datum
	key   []byte
	value []byte
	ents  []restored
}

// bytes estimates the memory of the bookkeeping.
func (c *checkpoint) bytes() int64 {
	return int64(cap(c.inUse))*8 + int64(cap(c.bits))*8 + int64(cap(c.ids))*4 + int64(cap(c.delKeys)) +
		int64(cap(c.delEnds))*8 + int64(cap(c.delKGs))*4 + int64(cap(c.hashes))*8
}

// mark marks row id changed.
func (c *checkpoint) mark(id int32) {
	if bitset.Set(&c.bits, id) {
		c.ids = append(c.ids, id)
	}
}

// added records that row id holds a row new to its partition.
func (c *checkpoint) added(id int32) {
	bitset.Set(&c.inUse, id)
	c.mark(id)
}

// keyGroupOf returns the key group of row i of the chunk b, hashing the
// chunk's partition columns on the first call for the chunk.
func (o *Agg) keyGroupOf(b arrow.RecordBatch, i int) (int32, error) {
	if len(o.cfg.Partition) == 0 {
		return int32(o.env.KeyGroups.Lo), nil
	}
	c := &o.ck
	if !c.hashed {
		c.pcols = c.pcols[:0]
		for _, ord := range o.cfg.Partition {
			c.pcols = append(c.pcols, b.Column(ord))
		}
		c.hashes = vec.Resize(c.hashes, int(b.NumRows()))
		err := exec.HashRows(c.pcols, c.hashes)
		clear(c.pcols)
		if err != nil {
			return 0, fmt.Errorf("window aggregate: %w", err)
		}
		c.hashed = true
	}
	return int32(exec.KeyGroup(c.hashes[i])), nil
}

// gone records that the row of partition p with sort key sk, from row i
// of the chunk b, lost its last copy.
func (o *Agg) gone(p *ordtree.Partition, sk string, b arrow.RecordBatch, i int) error {
	c := &o.ck
	if !c.written {
		return nil
	}
	kg, err := o.keyGroupOf(b, i)
	if err != nil {
		return err
	}
	c.delKeys = appendEntryKey(c.delKeys, p.Key, sk)
	c.delEnds = append(c.delEnds, len(c.delKeys))
	c.delKGs = append(c.delKGs, kg)
	return nil
}

// freedID forgets row id, removed from the store.
func (c *checkpoint) freedID(id int32) { bitset.Clear(c.inUse, id) }

// appendEntryKey appends the entry key of the row of partition key pk and
// sort key sk.
func appendEntryKey(buf []byte, pk, sk string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(pk)))
	return append(append(buf, pk...), sk...)
}

// putRows puts the entries of the rows ids: it gathers their values,
// encodes their keys and hashes their key groups from them (the values
// encode to the keys the trees hold, as Restore checks), and finds their
// copies in their partitions.
func (o *Agg) putRows(w exec.StateWriter, ids []int32) error {
	c := &o.ck
	c.cols = vec.Resize(c.cols, len(o.cfg.Input))
	defer arrays.Release(c.cols)
	for j := range c.cols {
		c.cols[j] = o.store.Gather(o.env.Alloc, j, ids)
	}
	rec := array.NewRecordBatch(o.schemaIn(), c.cols, int64(len(ids)))
	defer rec.Release()
	if err := o.encode(rec); err != nil {
		return fmt.Errorf("window aggregate: snapshot: %w", err)
	}
	c.hashed = false
	defer func() { c.hashed = false }()
	c.vals = vec.Resize(c.vals, len(c.cols))
	for i, id := range ids {
		p := o.parts.Get(ordtree.View(o.pkeys[i]))
		sk := ordtree.View(o.skeys[i])
		var n int64
		if p != nil {
			_, n = p.Tree.Find(ordtree.KeyOf(sk))
		}
		if n <= 0 {
			return fmt.Errorf("window aggregate: snapshot: row %d is not in its partition", id)
		}
		kg, err := o.keyGroupOf(rec, i)
		if err != nil {
			return err
		}
		for j, col := range c.cols {
			c.vals[j] = types.DatumAt(col, i, o.cfg.Input[j])
		}
		c.key = appendEntryKey(c.key[:0], p.Key, sk)
		c.value = rowset.EncodeRow(c.value[:0], o.cfg.Input, n, c.vals)
		if err := w.Put(int(kg), c.key, c.value); err != nil {
			return err
		}
	}
	clear(c.vals)
	return nil
}

// schemaIn returns the schema of the input columns (the first of the
// output's).
func (o *Agg) schemaIn() *arrow.Schema {
	return arrow.NewSchema(o.schema.Fields()[:len(o.cfg.Input)], nil)
}

// restored is an entry read by Restore, before its row is added.
type restored struct {
	pk, sk string
	n      int64
	kg     int
}

// Restore rebuilds the partitions of the key groups in groups from the
// entries of the last checkpoint: every row with its copies and values,
// its place in its partition's tree recomputed from the values and checked
// against the entry's key.
func (o *Agg) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if o.store == nil {
		return errors.New("window aggregate: Restore before Open")
	}
	c := &o.ck
	err := r.Scan(ctx, groups, func(kg int, key, value []byte) error {
		e, vals, err := o.readEntry(kg, key, value)
		if err != nil {
			return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, kg, key, err)
		}
		c.ents, c.rows = append(c.ents, e), append(c.rows, vals)
		if len(c.ents) == snapshotBatch {
			return o.restoreRows()
		}
		return nil
	})
	if err == nil && len(c.ents) > 0 {
		err = o.restoreRows()
	}
	clear(c.ents)
	clear(c.rows)
	c.ents, c.rows = c.ents[:0], c.rows[:0]
	c.written = true
	o.updateMetrics()
	return err
}

// readEntry decodes an entry.
func (o *Agg) readEntry(kg int, key, value []byte) (restored, []types.Datum, error) {
	l, m := binary.Uvarint(key)
	if m <= 0 || l > uint64(len(key)-m) {
		return restored{}, nil, errors.New("bad partition key length")
	}
	e := restored{pk: string(key[m : m+int(l)]), sk: string(key[m+int(l):]), kg: kg}
	n, vals, err := rowset.DecodeRow(value, o.cfg.Input)
	if err != nil {
		return restored{}, nil, err
	}
	e.n = n
	return e, vals, nil
}

// restoreRows adds the rows read (c.ents, c.rows) to the store and their
// partitions' trees, and forgets them.
func (o *Agg) restoreRows() error {
	c := &o.ck
	rec := types.BuildRecord(o.env.Alloc, o.cfg.Names[:len(o.cfg.Input)], o.cfg.Input, c.rows)
	defer rec.Release()
	if err := o.encode(rec); err != nil {
		return fmt.Errorf("%w: %w", errRestore, err)
	}
	c.hashed = false
	o.parts.Begin()
	defer o.parts.Finish()
	cols := rec.Columns()
	for i, e := range c.ents {
		if string(o.pkeys[i]) != e.pk || string(o.skeys[i]) != e.sk {
			return fmt.Errorf("%w: key group %d: entry %q: the key is not the values'", errRestore, e.kg,
				appendEntryKey(nil, e.pk, e.sk))
		}
		p := o.parts.Touch(o.pkeys[i])
		key := ordtree.KeyOf(ordtree.View(o.skeys[i]))
		if _, n := p.Tree.Find(key); n != 0 {
			return fmt.Errorf("%w: key group %d: a row seen twice", errRestore, e.kg)
		}
		id := o.store.Add(cols, i)
		stored, _, err := p.Tree.Add(key, e.n, id, o.olens[i], &o.parts.Gauge)
		if err != nil {
			o.store.Remove(id)
			return fmt.Errorf("%w: %w", errRestore, err)
		}
		c.added(id)
		if err := o.groupAdded(p, stored); err != nil {
			return fmt.Errorf("%w: %w", errRestore, err)
		}
		kg, err := o.keyGroupOf(rec, i)
		if err != nil {
			return err
		}
		if int(kg) != e.kg {
			return fmt.Errorf("%w: key group %d: a row of key group %d", errRestore, e.kg, kg)
		}
	}
	// The rows are the snapshot's: not changed.
	for _, id := range c.ids {
		c.bits[id>>6] &^= 1 << (id & 63)
	}
	c.ids = c.ids[:0]
	c.hashed = false
	clear(c.ents)
	clear(c.rows)
	c.ents, c.rows = c.ents[:0], c.rows[:0]
	return nil
}
