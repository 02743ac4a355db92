package ordtree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/storage"
)

// Checkpoints of ordered state. An ordered operator's state is, per
// partition, its rows as sort keys with their numbers of copies, and a
// snapshot writes one entry per distinct row of a partition:
//
//   - key: the length of the encoded partition key (a uvarint), the
//     partition key, then the sort key (AppendEntryKey);
//   - value: the row's number of copies (a uvarint), then whatever the
//     operator keeps with the row (AppendEntryValue); Top-N keeps nothing.
//
// The operator writes each entry in the key group of its partition key,
// as the hash exchange in front of it routes the partition's rows (a
// partition is never split between instances), or in its instance's first
// key group when it has no partitions.
//
// Changes records the rows changed since the last snapshot, so that a
// snapshot costs what changed rather than what is held; Partitions.Snapshot
// reports them (every row held, the first time) and Partitions.Load puts
// a restored row back.

// ErrDamaged is wrapped by the errors of entries that do not decode.
var ErrDamaged = errors.New("ordtree: damaged entry")

// AppendEntryKey appends the entry key of the row with sort key key in the
// partition with encoded key part.
func AppendEntryKey(buf []byte, part, key string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(part)))
	return append(append(buf, part...), key...)
}

// SplitEntryKey returns the partition key and the sort key of an entry key
// that AppendEntryKey wrote. The sort key is never empty.
func SplitEntryKey(k []byte) (part, key []byte, err error) {
	n, m := binary.Uvarint(k)
	if m <= 0 || n >= uint64(len(k)-m) {
		return nil, nil, fmt.Errorf("%w: bad entry key", ErrDamaged)
	}
	k = k[m:]
	return k[:n], k[n:], nil
}

// AppendEntryValue appends the entry value of a row held n times, before
// what its operator keeps with it.
func AppendEntryValue(buf []byte, n int64) []byte {
	return binary.AppendUvarint(buf, uint64(n))
}

// EntryCount returns the number of copies of an entry value and the bytes
// after it, the operator's own.
func EntryCount(v []byte) (n int64, rest []byte, err error) {
	c, m := binary.Uvarint(v)
	if m <= 0 || c == 0 || c > math.MaxInt64 {
		return 0, nil, fmt.Errorf("%w: bad count of copies", ErrDamaged)
	}
	return int64(c), v[m:], nil
}

// change is a row changed since the last snapshot: its partition's key and
// its sort key.
type change struct {
	part string
	key  Key
}

// compactSlack is how many changes the list takes beyond twice its size
// after the last compaction before it is compacted again: compaction is
// then amortized over at least as many changes as it keeps.
const compactSlack = 256

// Changes records the rows of an operator's partitions changed since its
// last snapshot. It records nothing until tracking starts (Start, after
// the first snapshot or a restore): until then a snapshot writes every row
// held. A change is an append to a list (its strings are the tree's and
// the partition's, not copies); when the list has doubled since it was
// last compacted it is sorted and rid of repeats, so it holds at most
// twice the distinct rows changed, whatever the number of changes. The
// zero value records nothing.
type Changes struct {
	on   bool
	list []change
	kept int // the length of list after its last compaction
}

// Tracking reports whether changes are recorded.
func (c *Changes) Tracking() bool { return c.on }

// Note records a change of the row with sort key key in the partition with
// encoded key part, if changes are tracked.
func (c *Changes) Note(part string, key Key) {
	if !c.on {
		return
	}
	c.list = append(c.list, change{part: part, key: key})
	if len(c.list) > 2*c.kept+compactSlack {
		c.compact()
	}
}

// compareChange orders changes by partition key, then sort key.
func compareChange(a, b change) int {
	if r := strings.Compare(a.part, b.part); r != 0 {
		return r
	}
	return a.key.Compare(b.key)
}

// compact sorts the list by partition, then key, and drops repeats.
func (c *Changes) compact() {
	slices.SortFunc(c.list, compareChange)
	n := len(slices.CompactFunc(c.list, func(a, b change) bool { return a.part == b.part && a.key.S == b.key.S }))
	clear(c.list[n:])
	c.list = c.list[:n]
	c.kept = n
}

// Each calls fn for every row changed since the last snapshot, once, in
// order of partition key, then sort key. It stops at fn's first error.
func (c *Changes) Each(fn func(part string, key Key) error) error {
	c.compact()
	for _, ch := range c.list {
		if err := fn(ch.part, ch.key); err != nil {
			return err
		}
	}
	return nil
}

// Done forgets the changes after a snapshot wrote them, and starts
// tracking if it had not.
func (c *Changes) Done() {
	clear(c.list)
	c.list, c.kept, c.on = c.list[:0], 0, true
}

// Len returns the number of changes listed, repeats included.
func (c *Changes) Len() int { return len(c.list) }

// Bytes estimates the memory of the list.
func (c *Changes) Bytes() int64 { return int64(cap(c.list)) * 40 }

// Snapshot calls fn for every row whose copies changed since the last
// snapshot, with its number of copies now (0: it is gone), in order of
// partition key, then sort key; when changes are not tracked yet, for
// every row held, grouped by partition. The caller writes the entries,
// then calls c.Done.
func (ps *Partitions) Snapshot(c *Changes, fn func(part, key string, n int64) error) error {
	if !c.on {
		return ps.m.each(func(p *Partition) error {
			return p.Tree.Each(func(e *Entry) error { return fn(p.Key, e.S, e.N) })
		})
	}
	var p *Partition
	return c.Each(func(part string, key Key) error {
		if p == nil || p.Key != part {
			if p = ps.Get(part); p == nil {
				p = &Partition{Key: part} // gone: an empty tree
			}
		}
		_, n := p.Tree.Find(key)
		return fn(part, key.S, n)
	})
}

// Load puts back a restored row: n copies of the row with sort key key in
// the partition with encoded key pk, which must not hold it yet. It
// returns the partition.
func (ps *Partitions) Load(pk, key string, n int64) (*Partition, error) {
	h := ps.m.hashString(pk)
	p := ps.m.find(h, pk)
	if p == nil {
		p = ps.create(strings.Clone(pk), h)
	}
	if _, c := p.Tree.Find(KeyOf(key)); c != 0 {
		return nil, fmt.Errorf("%w: a row restored twice", ErrDamaged)
	}
	if _, _, err := p.Tree.Add(KeyOf(key), n, 0, 0, &ps.Gauge); err != nil {
		return nil, err
	}
	return p, nil
}

// Each calls fn for every entry of the tree in key order. It stops at fn's
// first error.
func (t *Tree) Each(fn func(e *Entry) error) error {
	if t.root == nil {
		return nil
	}
	for cur, _ := t.SeekRank(0); ; cur.Next() {
		e := cur.Entry()
		if e == nil {
			return nil
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// CheckKeys checks that part and key are a partition key and a sort key of
// the layout: each holds its fields' values, in order, of their types,
// and nothing more. buf is scratch for the inverted values of DESC fields;
// it is returned for reuse.
func (l *Layout) CheckKeys(buf, part, key []byte) ([]byte, error) {
	var err error
	if buf, err = l.checkKey(buf, l.Part, part); err != nil {
		return buf, fmt.Errorf("partition key: %w", err)
	}
	if buf, err = l.checkKey(buf, l.Sort, key); err != nil {
		return buf, fmt.Errorf("sort key: %w", err)
	}
	return buf, nil
}

// checkKey checks that key holds values of fields.
func (l *Layout) checkKey(buf []byte, fields []Field, key []byte) ([]byte, error) {
	for _, f := range fields {
		src := key
		if f.Desc {
			buf = append(buf[:0], key...)
			Invert(buf, true)
			src = buf
		}
		rest, err := checkValue(l.Phys[f.Ord], src)
		if err != nil {
			return buf, fmt.Errorf("%w: column %d: %w", ErrDamaged, f.Ord, err)
		}
		key = key[len(key)-len(rest):]
	}
	if len(key) != 0 {
		return buf, fmt.Errorf("%w: %d bytes after the values", ErrDamaged, len(key))
	}
	return buf, nil
}

// checkValue checks that src starts with a value of physical type phys, or
// NULL, and returns the rest.
func checkValue(phys types.Physical, src []byte) ([]byte, error) {
	if storage.IsNull(src) {
		return storage.DecodeNull(src)
	}
	var rest []byte
	var err error
	switch phys {
	case types.PhysBool:
		_, rest, err = storage.DecodeBool(src)
	case types.PhysInt64, types.PhysTimestamp, types.PhysDate32, types.PhysDuration:
		_, rest, err = storage.DecodeInt64(src)
	case types.PhysFloat64:
		_, rest, err = storage.DecodeFloat64(src)
	case types.PhysDecimal:
		_, rest, err = storage.DecodeDecimal128(src)
	case types.PhysString:
		_, rest, err = storage.DecodeBytes(nil, src)
	default:
		return nil, errors.New("a value in a NULL column")
	}
	return rest, err
}
