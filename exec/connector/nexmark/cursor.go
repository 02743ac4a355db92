package nexmark

import "math"

// noEvent marks a residue from which no event of a table's kind comes
// (only for a kind that never occurs).
const noEvent = math.MaxUint8

// SplitBlock is how many consecutive events of the global sequence a split
// takes in turn: split i of P generates the blocks i, i+P, i+2P, … A
// split's batch then covers consecutive events, as the one split's does
// at parallelism 1, rather than every P-th event over P times the event
// time: an aggregate downstream sees each group in as few batches at any
// parallelism (with splits taking every P-th event, q5's per-auction
// counts emitted twice the changes at parallelism 2). The splits' event
// times stay within a block of each other (0.4 s at the default rate).
const SplitBlock = 4096

// cursor walks one split's share of the global event sequence: the event
// numbers of its blocks (SplitBlock) below end, keeping those of one kind.
// Whether n is of the kind depends only on n mod 50, and so does the
// number of events to the next one: skip tabulates it, so the cursor
// jumps from event to event of its kind in O(1) within a block.
type cursor struct {
	n      uint64 // the next event number to consider
	block  uint64 // events per block
	stride uint64 // block × parallelism: from a block of the split to its next
	end    uint64 // events; math.MaxUint64 when unbounded
	never  bool   // the split has no event of the kind
	skip   [totalProportion]uint8
}

// newBlockCursor returns the cursor of split instance of parallelism,
// taking blocks of block events in turn, over the events of kind k among
// the first events (0 = unbounded).
func newBlockCursor(k kind, instance, parallelism int, events int64, block uint64) cursor {
	c := cursor{n: uint64(instance) * block, block: block, stride: block * uint64(parallelism), end: math.MaxUint64}
	if events > 0 {
		c.end = uint64(events)
	}
	c.n = min(c.n, c.end)
	c.never = !c.sees(k, instance)
	for r := range c.skip {
		c.skip[r] = noEvent
		for d := uint64(0); d < totalProportion; d++ {
			if kindOf(uint64(r)+d) == k {
				c.skip[r] = uint8(d)
				break
			}
		}
	}
	return c
}

// sees reports whether split instance ever meets an event of kind k.
// Blocks of 50 events or more hold one of each; shorter ones start at
// offsets mod 50 that repeat after at most 50 blocks, so looking at the
// first 50 blocks tells.
func (c *cursor) sees(k kind, instance int) bool {
	for b := uint64(0); b < totalProportion; b++ {
		start := uint64(instance)*c.block + b*c.stride
		for j := uint64(0); j < min(c.block, totalProportion); j++ {
			if kindOf(start+j) == k {
				return true
			}
		}
	}
	return false
}

// owns reports whether event n is in the split (of the instance given).
func (c *cursor) owns(n uint64, instance int) bool {
	return (n%c.stride)/c.block == uint64(instance)
}

// nextBlock moves n to the start of the split's block after n's, or to
// end.
func (c *cursor) nextBlock() {
	start := c.n - c.n%c.block
	if c.end-start <= c.stride {
		c.n = c.end
		return
	}
	c.n = start + c.stride
}

// seek moves n forward to the next event of the kind and reports whether
// there is one before end.
func (c *cursor) seek() bool {
	if c.never {
		return false
	}
	for c.n < c.end {
		d := uint64(c.skip[c.n%totalProportion])
		if d == noEvent {
			c.n = c.end
			return false
		}
		left := c.block - c.n%c.block // events left in n's block
		if d < left {
			if d >= c.end-c.n {
				c.n = c.end
				return false
			}
			c.n += d
			return true
		}
		c.nextBlock()
	}
	return false
}

// advance moves past event n.
func (c *cursor) advance() {
	if c.n >= c.end {
		return
	}
	if (c.n+1)%c.block == 0 {
		c.nextBlock()
		return
	}
	c.n++
}

// count returns how many events of the kind the cursor yields with numbers
// up to limit, at most most. It walks a copy of the cursor, unless the span
// is so long that it must hold most: the split owns all but at most a
// block of every P events of it, and a run of 50 consecutive events holds
// one of each kind.
func (c cursor) count(limit uint64, most int) int {
	if !c.seek() || c.n > limit {
		return 0
	}
	p := c.stride / c.block
	if hi := min(limit, c.end-1); (hi-c.n)/p >= (uint64(most)+4)*totalProportion+2*c.block {
		return most
	}
	k := 0
	for k < most && c.seek() && c.n <= limit {
		k++
		c.advance()
	}
	return k
}
