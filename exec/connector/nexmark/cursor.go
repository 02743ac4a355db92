package nexmark

import "math"

// noEvent marks a position from which a split never reaches an event of
// its table's kind.
const noEvent = math.MaxUint8

// cursor walks one split's share of the global event sequence: event
// numbers n = instance, instance+P, instance+2P, … below end, keeping those
// of one kind. Whether n is of the kind depends only on n mod 50, and so
// does the number of steps to the next one: skip tabulates it, so the
// cursor jumps from event to event of its kind in O(1).
type cursor struct {
	n    uint64 // the next event number to consider
	step uint64 // P
	end  uint64 // events; math.MaxUint64 when unbounded
	skip [totalProportion]uint8
}

// newCursor returns the cursor of split instance of parallelism over the
// events of kind k among the first events (0 = unbounded).
func newCursor(k kind, instance, parallelism int, events int64) cursor {
	c := cursor{n: uint64(instance), step: uint64(parallelism), end: math.MaxUint64}
	if events > 0 {
		c.end = uint64(events)
	}
	// n mod 50 repeats with a period of 50/gcd(P, 50) <= 50 steps, so an
	// event of the kind is fewer than 50 steps away or never comes.
	for r := range c.skip {
		c.skip[r] = noEvent
		for d := uint64(0); d < totalProportion; d++ {
			if kindOf(uint64(r)+d*(c.step%totalProportion)) == k {
				c.skip[r] = uint8(d)
				break
			}
		}
	}
	return c
}

// seek moves n forward to the next event of the kind and reports whether
// there is one before end.
func (c *cursor) seek() bool {
	if c.n >= c.end {
		return false
	}
	d := c.skip[c.n%totalProportion]
	if d == noEvent {
		return false
	}
	if adv := uint64(d) * c.step; adv < c.end-c.n {
		c.n += adv
		return true
	}
	c.n = c.end
	return false
}

// advance moves past event n.
func (c *cursor) advance() {
	if c.end-c.n <= c.step {
		c.n = c.end
		return
	}
	c.n += c.step
}

// count returns how many events of the kind the cursor yields with numbers
// up to limit, at most most. It walks a copy of the cursor, unless the span
// is so long (50 steps per wanted event) that it must hold most.
func (c cursor) count(limit uint64, most int) int {
	if !c.seek() || c.n > limit {
		return 0
	}
	if hi := min(limit, c.end-1); (hi-c.n)/c.step >= uint64(most)*totalProportion {
		return most
	}
	k := 0
	for k < most && c.seek() && c.n <= limit {
		k++
		c.advance()
	}
	return k
}
