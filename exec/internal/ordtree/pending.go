package ordtree

import "math"

// Pending is the list of changes a snapshot written in steps after its
// barrier (exec.DeferredSnapshotter) still has to write: Changes.Begin
// takes the list as it stands, in constant time, and the operator writes
// a budget of it at a time (Next), each row with its copies as at the
// barrier — the operator saves those of a row before a chunk after the
// barrier changes them.
//
// Each row is reported once. The list as taken is a sorted prefix without
// repeats (what its last compaction left) and a tail of the changes noted
// since, unsorted: a tail row is passed over when a binary search finds it
// in the prefix, or when the tail had it before (a set of the tail's rows
// reported).
type Pending struct {
	list []change
	kept int // list[:kept] is sorted, without repeats
	next int // list[next:] are still to be looked at
	tail map[rowKey]struct{}
}

// rowKey names a row of a partition.
type rowKey struct{ part, key string }

// Begin takes the changes noted since the last snapshot as p, which must
// be done, and starts a new list, tracking changes from now on.
func (c *Changes) Begin(p *Pending) {
	clear(p.list) // the strings of rows long gone
	clear(p.tail)
	p.list, c.list = c.list, p.list[:0]
	p.kept, p.next = c.kept, 0
	c.kept, c.on = 0, true
}

// Done reports whether every change of p was looked at.
func (p *Pending) Done() bool { return p.next >= len(p.list) }

// Next calls fn for at most n of the rows still to write, each row once,
// and returns how many it called it for. It looks at no more than 8n
// changes, so that a step stays short where the tail repeats rows. It
// stops at fn's first error.
func (p *Pending) Next(n int, fn func(part string, key Key) error) (int, error) {
	k, scan := 0, math.MaxInt
	if n < math.MaxInt/8 {
		scan = 8 * n
	}
	for seen := 0; k < n && p.next < len(p.list) && seen < scan; seen++ {
		ch := p.list[p.next]
		if p.next >= p.kept && p.repeat(ch) {
			p.next++
			continue
		}
		if err := fn(ch.part, ch.key); err != nil {
			return k, err
		}
		p.next++
		k++
	}
	return k, nil
}

// repeat reports whether tail row ch was reported before: it is in the
// sorted prefix, or earlier in the tail (else it is recorded as reported).
func (p *Pending) repeat(ch change) bool {
	lo, hi := 0, p.kept
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareChange(p.list[m], ch) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < p.kept && compareChange(p.list[lo], ch) == 0 {
		return true
	}
	r := rowKey{ch.part, ch.key.S}
	if _, ok := p.tail[r]; ok {
		return true
	}
	if p.tail == nil {
		p.tail = make(map[rowKey]struct{})
	}
	p.tail[r] = struct{}{}
	return false
}

// Bytes estimates the memory of p.
func (p *Pending) Bytes() int64 { return int64(cap(p.list))*40 + int64(len(p.tail))*48 }
