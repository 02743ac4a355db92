// Package ttl finds the keys of an operator's state that have been idle for
// longer than a time to live (a query's state_ttl), in processing time, at
// a cost per tick that follows the keys that expire rather than the keys
// held (the lesson of Spark's mapWithState, whose timeouts scanned all
// state on every batch).
//
// A Wheel is a ring of time buckets of key slots, each Granularity wide
// (TTL/16, at least a millisecond). A slot is listed in the bucket of its
// deadline, its last access plus the TTL. Touching a listed slot only
// records the new access time (O(1), no allocation once the buckets have
// grown); when the slot's bucket fires, the slot is checked again and
// either expires or is listed once more under its new deadline. A slot
// therefore expires between TTL and TTL + Granularity after its last
// access (later only if the operator's timer fires late), and each tick
// examines the slots of the buckets it fires: those expiring, and at most
// once per TTL each slot touched since it was listed.
package ttl

import "time"

// Buckets is the number of buckets a TTL is divided into: the granularity
// is TTL/Buckets.
const Buckets = 16

// notLive marks a slot that holds no key.
const notLive = int64(-1 << 63)

// Wheel tracks the last access of numbered slots. Times are milliseconds
// (of exec.Env.Now); they never go back: an earlier time is taken as the
// latest one seen.
type Wheel struct {
	ttl, gran int64
	last      []int64   // by slot: the last access, or notLive
	listed    []uint64  // by slot: a bit, set while the slot is in a bucket
	ring      [][]int32 // bucket number b is ring[b % len(ring)]
	next      int64     // the first bucket number not yet fired
	count     int       // slots listed
	now       int64     // the latest time seen
	examined  int64     // slots examined by Expire
	scratch   []int32   // Expire's: the slots of the buckets it fires
}

// New returns a wheel for a TTL of d (at least a millisecond).
func New(d time.Duration) *Wheel {
	ttl := max(d.Milliseconds(), 1)
	gran := max(ttl/Buckets, 1)
	// Deadlines are at most TTL + Granularity after the last fired bucket.
	n := ttl/gran + 2
	return &Wheel{ttl: ttl, gran: gran, ring: make([][]int32, n), next: -1 << 62, now: notLive}
}

// Granularity returns the width of a bucket: a slot expires at most this
// much later than its last access plus the TTL.
func (w *Wheel) Granularity() time.Duration { return time.Duration(w.gran) * time.Millisecond }

// Examined returns how many slots Expire has examined so far.
func (w *Wheel) Examined() int64 { return w.examined }

// Len returns the number of slots listed (live, or freed and not yet
// dropped by the firing of their bucket).
func (w *Wheel) Len() int { return w.count }

// Bytes estimates the wheel's memory.
func (w *Wheel) Bytes() int64 {
	n := int64(cap(w.last))*8 + int64(cap(w.listed))*8 + int64(cap(w.scratch))*4
	for _, b := range w.ring {
		n += int64(cap(b))*4 + 24
	}
	return n
}

// clock returns now, or the latest time seen if now is earlier.
func (w *Wheel) clock(now int64) int64 {
	if now > w.now {
		w.now = now
	}
	return w.now
}

// grow makes room for slot s.
func (w *Wheel) grow(s int32) {
	for int(s) >= len(w.last) {
		w.last = append(w.last, notLive)
	}
	if k := int(s)>>6 + 1; k > len(w.listed) {
		w.listed = append(w.listed, make([]uint64, k-len(w.listed))...)
	}
}

// Touch records an access to the key of slot s at now.
func (w *Wheel) Touch(s int32, now int64) {
	if int(s) >= len(w.last) {
		w.grow(s)
	}
	now = w.clock(now)
	w.last[s] = now
	if w.listed[s>>6]&(1<<(s&63)) == 0 {
		w.list(s, now+w.ttl)
	}
}

// Forget records that slot s no longer holds a key (it was freed): it
// expires no more, until a new key in it is touched.
func (w *Wheel) Forget(s int32) {
	if int(s) < len(w.last) {
		w.last[s] = notLive
	}
}

// list puts slot s, not listed, in the bucket of deadline d.
func (w *Wheel) list(s int32, d int64) {
	if w.count == 0 && w.next < w.now/w.gran {
		w.next = w.now / w.gran // nothing listed: the ring starts afresh
	}
	b := d / w.gran
	if last := w.next + int64(len(w.ring)) - 1; b > last {
		b = last // beyond the ring (Expire was not called for long): checked early, listed again then
	}
	if b < w.next {
		b = w.next
	}
	i := b % int64(len(w.ring))
	w.ring[i] = append(w.ring[i], s)
	w.listed[s>>6] |= 1 << (s & 63)
	w.count++
}

// NextDue returns when the next bucket holding slots fires (milliseconds),
// or false when no slot is listed.
func (w *Wheel) NextDue() (int64, bool) {
	if w.count == 0 {
		return 0, false
	}
	n := int64(len(w.ring))
	for b := w.next; b < w.next+n; b++ {
		if len(w.ring[b%n]) > 0 {
			return (b + 1) * w.gran, true
		}
	}
	return 0, false // not reached: count counts the listed slots
}

// Expire fires the buckets that end at or before now and appends to dst
// the slots among theirs whose key has been idle for the TTL: last
// access + TTL <= now. Those slots are no longer tracked (the caller frees
// them); the others are listed again under their new deadlines.
func (w *Wheel) Expire(now int64, dst []int32) []int32 {
	now = w.clock(now)
	end := now / w.gran // fire the buckets below end
	if w.count == 0 {
		if end > w.next {
			w.next = end
		}
		return dst
	}
	n := int64(len(w.ring))
	if end-w.next > n {
		// Every bucket fires: take them all at once rather than walking
		// the empty ones of a long gap.
		w.scratch = w.scratch[:0]
		for i := range w.ring {
			w.scratch = append(w.scratch, w.ring[i]...)
			w.ring[i] = w.ring[i][:0]
		}
		w.next = end
		return w.check(now, w.scratch, dst)
	}
	for w.next < end && w.count > 0 {
		i := w.next % n
		w.next++ // the slots listed again go to later buckets
		if len(w.ring[i]) == 0 {
			continue
		}
		w.scratch = append(w.scratch[:0], w.ring[i]...)
		w.ring[i] = w.ring[i][:0]
		dst = w.check(now, w.scratch, dst)
	}
	if w.next < end {
		w.next = end
	}
	return dst
}

// check examines the slots of fired buckets, taken out of the ring.
func (w *Wheel) check(now int64, slots, dst []int32) []int32 {
	w.examined += int64(len(slots))
	w.count -= len(slots)
	for _, s := range slots {
		w.listed[s>>6] &^= 1 << (s & 63)
		switch last := w.last[s]; {
		case last == notLive:
			// freed since it was listed
		case last+w.ttl <= now:
			w.last[s] = notLive
			dst = append(dst, s)
		default:
			w.list(s, last+w.ttl)
		}
	}
	return dst
}
