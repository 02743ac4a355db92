package ordtree

// Partition is one partition of an ordered operator: its rows in a tree.
type Partition struct {
	Key  string // the encoded partition key
	Tree Tree
	// Index is the partition's position in Partitions.Touched during the
	// last chunk that touched it.
	Index int32
	epoch uint64 // the last chunk that touched it
	id    int32  // its number in Partitions' index
	hash  uint64 // its key's hash there
}

// Partitions are an ordered operator's partitions by encoded key and the
// bookkeeping of a chunk: the chunks are numbered (Epoch), the partitions
// a chunk touches are listed in order of first touch (Touched), and what
// the partitions hold is summed (Gauge). The zero value is empty.
type Partitions struct {
	m partIndex
	// Epoch numbers the chunks: Begin starts the next.
	Epoch uint64
	// Touched are the partitions the current chunk touched, each at its
	// Index.
	Touched []*Partition
	Gauge   Gauge
	// keys is the arena the partitions' trees share (keyarena.go).
	keys *keyArena
	// LeafCap, if set, is the room a new partition's leaf starts with
	// (at most MaxLeafCap): a bounded Top-N's N+1, so that its
	// partitions' leaves do not grow by copies from four entries.
	LeafCap int
}

// Begin starts a chunk.
func (ps *Partitions) Begin() { ps.Epoch++ }

// Touch returns the partition with encoded key pk, creating it, and marks
// it touched by the current chunk.
func (ps *Partitions) Touch(pk []byte) *Partition {
	h := ps.m.hash(pk)
	p := ps.m.findBytes(h, pk)
	if p == nil {
		p = ps.create(string(pk), h)
	}
	if p.epoch != ps.Epoch {
		p.epoch = ps.Epoch
		p.Index = int32(len(ps.Touched))
		ps.Touched = append(ps.Touched, p)
	}
	return p
}

// create makes the partition of encoded key pk, whose hash is h.
func (ps *Partitions) create(pk string, h uint64) *Partition {
	p := &Partition{Key: pk}
	p.Tree.keys = ps.sharedKeys()
	p.Tree.leafCap = int32(min(ps.LeafCap, MaxLeafCap))
	ps.m.add(p, h)
	ps.Gauge.Parts++
	ps.Gauge.KeyBytes += int64(len(p.Key))
	return p
}

// Get returns the partition with encoded key pk, nil if there is none.
func (ps *Partitions) Get(pk string) *Partition { return ps.m.find(ps.m.hashString(pk), pk) }

// Finish ends a chunk: it drops the partitions the chunk emptied and
// forgets which it touched.
func (ps *Partitions) Finish() {
	for _, p := range ps.Touched {
		if p.Tree.Total == 0 {
			ps.m.remove(p)
			ps.Gauge.Parts--
			ps.Gauge.KeyBytes -= int64(len(p.Key))
		}
	}
	clear(ps.Touched)
	ps.Touched = ps.Touched[:0]
	ps.compactKeys()
}

// Keys returns the encoded keys of the partitions held, in no order.
func (ps *Partitions) Keys() []string {
	keys := make([]string, 0, ps.m.len())
	_ = ps.m.each(func(p *Partition) error {
		keys = append(keys, p.Key)
		return nil
	})
	return keys
}

// Len returns the number of partitions held.
func (ps *Partitions) Len() int { return ps.m.len() }

// Drop forgets the partition with encoded key pk and its rows, and takes
// them off the gauge, as a rescale drops the partitions of the key groups
// an instance no longer owns: nothing records the drop (the partition is
// its new owner's, not gone). It must not be called during a chunk.
func (ps *Partitions) Drop(pk string) {
	p := ps.Get(pk)
	if p == nil {
		return
	}
	ps.Gauge.Forget(&p.Tree)
	if ka := p.Tree.keys; ka != nil && ka.shared() {
		_ = p.Tree.Each(func(e *Entry) error {
			ka.dead += ka.span(len(e.S))
			return nil
		})
	}
	ps.Gauge.Parts--
	ps.Gauge.KeyBytes -= int64(len(p.Key))
	ps.m.remove(p)
}

// Forget takes what tree t holds (its rows, entries and keys) off the
// gauge, for a tree that is dropped whole.
func (g *Gauge) Forget(t *Tree) {
	_ = t.Each(func(e *Entry) error {
		g.Entries--
		g.KeyBytes -= int64(len(e.Key.S))
		return nil
	})
	g.Rows -= t.Total
}
