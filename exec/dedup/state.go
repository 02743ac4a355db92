package dedup

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
	"github.com/eddysql/eddy/exec/internal/rowkey"
)

// Checkpoints (exec.Stateful). The exact set is the state; the Bloom
// filters and buckets are rebuilt from it on Restore. Each entry of the
// set is one state entry, in the key group of its key as exec.HashRows
// hashes the key columns — the hash the exchange in front routes rows by,
// so an instance restores exactly the keys it will receive at any
// parallelism:
//
//   - key: the key columns as rowkey.Append encodes them, then the kept
//     row's time (8 bytes, big-endian), so that a key kept twice, more
//     than a window apart, is two entries;
//   - value: entryFormat, one byte.
//
// A snapshot writes only what changed: an entry added since the last one
// is marked (its dirty flag and a list), and an entry that a snapshot
// wrote records its state key for a Delete when its bucket expires.
// Entries added and expired between two snapshots cost nothing.

// entryFormat is the value of every entry: the layout's version, which
// Restore checks.
const entryFormat = 1

// errRestore is wrapped by every error of a restore.
var errRestore = errors.New("dedup: restore")

// delta is what changed since the last snapshot.
type delta struct {
	added   []int32  // entries marked dirty, possibly freed since
	delKeys []byte   // the state keys of the entries dropped, concatenated
	delEnds []int    // the end of each in delKeys
	delGrps []uint16 // the key group of each

	// Snapshot's scratch.
	key []byte
}

// mark lists entry id for the next snapshot, once.
func (d *delta) mark(s *exactSet, id int32) {
	if e := &s.entries[id]; e.flags&dirty == 0 {
		e.flags |= dirty
		d.added = append(d.added, id)
	}
}

// deleted records the deletion of written entry e, of key bytes key.
func (d *delta) deleted(e *entry, key []byte) {
	d.delKeys = appendStateKey(d.delKeys, key, e.time)
	d.delEnds = append(d.delEnds, len(d.delKeys))
	d.delGrps = append(d.delGrps, uint16(exec.KeyGroup(e.hash)))
}

// bytes estimates the memory of the delta.
func (d *delta) bytes() int64 {
	return int64(cap(d.added))*4 + int64(cap(d.delKeys)) + int64(cap(d.delEnds))*8 + int64(cap(d.delGrps))*2
}

// appendStateKey appends the state key of a key's entry kept at time t.
func appendStateKey(buf, key []byte, t int64) []byte {
	return binary.BigEndian.AppendUint64(append(buf, key...), uint64(t))
}

// Snapshot implements exec.Stateful: it deletes the entries dropped since
// the last snapshot that one had written, and puts the entries added since
// that are still live.
func (o *Operator) Snapshot(_ context.Context, _ uint64, w exec.StateWriter) error {
	if !o.open {
		return errors.New("dedup: Snapshot before Open")
	}
	d := &o.d
	start := 0
	for i, end := range d.delEnds {
		if err := w.Delete(int(d.delGrps[i]), d.delKeys[start:end]); err != nil {
			return err
		}
		start = end
	}
	value := []byte{entryFormat}
	for _, id := range d.added {
		e := &o.set.entries[id]
		e.flags &^= dirty
		if e.flags&live == 0 {
			continue
		}
		d.key = appendStateKey(d.key[:0], o.keyOf(e), e.time)
		if err := w.Put(exec.KeyGroup(e.hash), d.key, value); err != nil {
			return err
		}
		e.flags |= written
	}
	d.added, d.delKeys, d.delEnds, d.delGrps = d.added[:0], d.delKeys[:0], d.delEnds[:0], d.delGrps[:0]
	return nil
}

// restoreBatch is how many entries Restore decodes and hashes at once.
const restoreBatch = 4096

// Restore implements exec.Stateful: it rebuilds the exact set of the key
// groups in groups, and the buckets and Bloom filters over it. An entry
// whose value is not entryFormat, whose key does not decode as the key
// columns followed by a time, or whose key hashes into another key group
// than the one it is stored in, is damaged: Restore returns an error
// wrapping errRestore.
func (o *Operator) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if !o.open {
		return errors.New("dedup: Restore before Open")
	}
	rb := &restorer{o: o}
	rb.builders = make([]array.Builder, len(o.cfg.Keys))
	for i, k := range o.cfg.Keys {
		rb.builders[i] = types.NewBuilder(o.env.Alloc, o.cfg.Input[k])
	}
	defer arrays.ReleaseBuilders(rb.builders)
	err := r.Scan(ctx, groups, func(g int, key, value []byte) error {
		if len(value) != 1 || value[0] != entryFormat {
			return fmt.Errorf("%w: key group %d: entry %q: bad value %q", errRestore, g, key, value)
		}
		rest, err := rowkey.Decode(key, rb.builders)
		if err != nil || len(rest) != 8 {
			if err == nil {
				err = fmt.Errorf("%d bytes after the key, want 8", len(rest))
			}
			return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, g, key, err)
		}
		rb.keys = append(rb.keys, key[:len(key)-8]...)
		rb.ends = append(rb.ends, len(rb.keys))
		rb.times = append(rb.times, int64(binary.BigEndian.Uint64(rest)))
		rb.groups = append(rb.groups, g)
		if len(rb.ends) == restoreBatch {
			return rb.flush()
		}
		return nil
	})
	if err == nil {
		err = rb.flush()
	}
	o.updateMetrics()
	return err
}

// restorer collects decoded entries and adds them to the operator a batch
// at a time.
type restorer struct {
	o        *Operator
	builders []array.Builder
	keys     []byte
	ends     []int
	times    []int64
	groups   []int
	hashes   []uint64
}

// flush hashes the collected keys, checks that each is in its key group,
// and adds them to the exact set and the buckets as written entries.
func (rb *restorer) flush() error {
	n := len(rb.ends)
	if n == 0 {
		return nil
	}
	o := rb.o
	cols := make([]arrow.Array, len(rb.builders))
	for i, b := range rb.builders {
		cols[i] = b.NewArray()
	}
	defer arrays.Release(cols)
	rb.hashes = append(rb.hashes[:0], make([]uint64, n)...)
	if err := exec.HashRows(cols, rb.hashes); err != nil {
		return fmt.Errorf("%w: %w", errRestore, err)
	}
	start := 0
	for i, end := range rb.ends {
		h := rb.hashes[i]
		key := rb.keys[start:end]
		start = end
		if g := exec.KeyGroup(h); g != rb.groups[i] {
			return fmt.Errorf("%w: key group %d: entry %q belongs to key group %d", errRestore, rb.groups[i], key, g)
		}
		t := rb.times[i]
		bi := o.bkt.find(t, minBucketKeys)
		b := &o.bkt.pool[bi]
		off := len(b.keys)
		b.keys = append(b.keys, key...)
		o.bkt.keyBytes += int64(len(key))
		id := o.add(entry{hash: h, time: t, bucket: bi, off: uint32(off), n: uint32(len(key))}, b)
		o.set.entries[id].flags |= written
	}
	// Restored entries are in the store already: nothing to put.
	for _, id := range o.d.added {
		o.set.entries[id].flags &^= dirty
	}
	o.d.added = o.d.added[:0]
	rb.keys, rb.ends, rb.times, rb.groups = rb.keys[:0], rb.ends[:0], rb.times[:0], rb.groups[:0]
	return nil
}
