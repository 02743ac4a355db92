package setop

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

// Checkpoints (exec.Stateful). Each row held is one state entry, in the
// key group of its hash — the hash the exchange in front routes rows by,
// so an instance restores exactly the rows it will receive at any
// parallelism:
//
//   - key: the row as rowkey.Append encodes it;
//   - value: entryFormat, then the row's left and right counts as
//     varints.
//
// A snapshot writes only what changed: an entry whose counts changed since
// the last one is listed (its dirty flag), and an entry a snapshot wrote
// records its state key for a Delete when its counts both fall to zero.

// entryFormat is the first byte of every value: the layout's version,
// which Restore checks.
const entryFormat = 1

// errRestore is wrapped by every error of a restore.
var errRestore = errors.New("setop: restore")

// delta is what changed since the last snapshot.
type delta struct {
	changed []int32  // entries marked dirty, possibly freed since
	delKeys []byte   // the state keys of the entries removed, concatenated
	delEnds []int    // the end of each in delKeys
	delGrps []uint16 // the key group of each

	// Snapshot's scratch.
	value []byte
}

// mark lists entry id for the next snapshot, once.
func (d *delta) mark(s *table, id int32) {
	if e := &s.entries[id]; e.flags&dirty == 0 {
		e.flags |= dirty
		d.changed = append(d.changed, id)
	}
}

// deleted records the deletion of a written entry of hash h and key bytes
// key.
func (d *delta) deleted(h uint64, key []byte) {
	d.delKeys = append(d.delKeys, key...)
	d.delEnds = append(d.delEnds, len(d.delKeys))
	d.delGrps = append(d.delGrps, uint16(exec.KeyGroup(h)))
}

// bytes estimates the memory of the delta.
func (d *delta) bytes() int64 {
	return int64(cap(d.changed))*4 + int64(cap(d.delKeys)) + int64(cap(d.delEnds))*8 + int64(cap(d.delGrps))*2
}

// Snapshot implements exec.Stateful: it deletes the entries removed since
// the last snapshot that one had written, and puts the entries changed
// since that are still live. If the writer fails, everything stays listed
// for the next snapshot.
func (o *Operator) Snapshot(_ context.Context, _ uint64, w exec.StateWriter) error {
	if !o.open {
		return errors.New("setop: Snapshot before Open")
	}
	d := &o.d
	start := 0
	for i, end := range d.delEnds {
		if err := w.Delete(int(d.delGrps[i]), d.delKeys[start:end]); err != nil {
			return err
		}
		start = end
	}
	for _, id := range d.changed {
		e := &o.tab.entries[id]
		if e.flags&live == 0 {
			continue
		}
		d.value = binary.AppendVarint(binary.AppendVarint(append(d.value[:0], entryFormat), e.a), e.b)
		if err := w.Put(exec.KeyGroup(e.hash), o.tab.key(e), d.value); err != nil {
			return err
		}
	}
	for _, id := range d.changed {
		e := &o.tab.entries[id]
		e.flags &^= dirty
		if e.flags&live != 0 {
			e.flags |= written
		}
	}
	d.changed, d.delKeys, d.delEnds, d.delGrps = d.changed[:0], d.delKeys[:0], d.delEnds[:0], d.delGrps[:0]
	return nil
}

// restoreBatch is how many entries Restore decodes and hashes at once.
const restoreBatch = 4096

// Restore implements exec.Stateful: it rebuilds the counts of the key
// groups in groups. An entry whose value is not entryFormat and two
// varints, whose key does not decode as a row of the operator's columns,
// or whose row hashes into another key group than the one it is stored
// in, is damaged: Restore returns an error wrapping errRestore.
func (o *Operator) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if !o.open {
		return errors.New("setop: Restore before Open")
	}
	rb := &restorer{o: o, builders: make([]array.Builder, len(o.cfg.Types))}
	for i, t := range o.cfg.Types {
		rb.builders[i] = types.NewBuilder(o.env.Alloc, t)
	}
	defer arrays.ReleaseBuilders(rb.builders)
	err := r.Scan(ctx, groups, func(g int, key, value []byte) error {
		a, b, ok := decodeCounts(value)
		if !ok {
			return fmt.Errorf("%w: key group %d: entry %q: bad value %q", errRestore, g, key, value)
		}
		rest, err := rowkey.Decode(key, rb.builders)
		if err == nil && len(rest) != 0 {
			err = fmt.Errorf("%d bytes after the row", len(rest))
		}
		if err != nil {
			return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, g, key, err)
		}
		rb.keys = append(rb.keys, key...)
		rb.ends = append(rb.ends, len(rb.keys))
		rb.counts = append(rb.counts, a, b)
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

// decodeCounts reads a value Snapshot wrote: the left and right counts,
// not both zero.
func decodeCounts(v []byte) (a, b int64, ok bool) {
	if len(v) < 3 || v[0] != entryFormat {
		return 0, 0, false
	}
	a, n := binary.Varint(v[1:])
	if n <= 0 {
		return 0, 0, false
	}
	b, m := binary.Varint(v[1+n:])
	if m <= 0 || 1+n+m != len(v) || a == 0 && b == 0 {
		return 0, 0, false
	}
	return a, b, true
}

// restorer collects decoded entries and adds them to the operator a batch
// at a time.
type restorer struct {
	o        *Operator
	builders []array.Builder
	keys     []byte
	ends     []int
	counts   []int64 // a and b of each entry
	groups   []int
	hashes   []uint64
}

// flush hashes the collected rows, checks that each is in its key group,
// and adds them to the table as written entries.
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
		h, key := rb.hashes[i], rb.keys[start:end]
		start = end
		if g := exec.KeyGroup(h); g != rb.groups[i] {
			return fmt.Errorf("%w: key group %d: entry %q belongs to key group %d", errRestore, rb.groups[i], key, g)
		}
		if o.tab.find(h, key) >= 0 {
			return fmt.Errorf("%w: key group %d: entry %q is restored twice", errRestore, rb.groups[i], key)
		}
		id := o.tab.add(h, key)
		e := &o.tab.entries[id]
		e.a, e.b = rb.counts[2*i], rb.counts[2*i+1]
		e.flags |= written
	}
	rb.keys, rb.ends, rb.counts, rb.groups = rb.keys[:0], rb.ends[:0], rb.counts[:0], rb.groups[:0]
	return nil
}
