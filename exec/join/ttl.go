package join

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ttl"
)

// State TTL (Config.StateTTL) of a regular join. A join key's last access
// is the last time a row of that key arrived, on either side. Each side's
// buckets have slots in a ttl.Wheel of the side; a row touches the bucket
// of its key on both sides (the other side's is looked up for its matches
// anyway, its own is where it is kept), so the two buckets of a key share
// their last access. The keys idle for the TTL are evicted before each
// chunk and on the processing-time timer: every row of the key, on both
// sides, is dropped without output (the join results they made stay in
// the output; a later row of the key matches only rows that came after
// the eviction), and their checkpoint entries are deleted through the
// sides' change tracking. A retraction of a row the join no longer holds
// is then ignored and counted, rather than an error. The last accesses are
// not checkpointed: restored keys count as accessed at the restore.

// The names of the join's TTL counters (EXPLAIN ANALYZE).
const (
	evictedCounter = "ttl_evicted_rows"
	ignoredCounter = "ttl_ignored_retractions"
)

// joinTTL is a HashJoin's state TTL.
type joinTTL struct {
	now     int64 // the processing time of the chunk being applied (ms)
	evicted *atomic.Int64
	ignored *atomic.Int64
	expired []int32 // scratch
}

// sideTTL is one side's: its buckets by slot.
type sideTTL struct {
	wheel *ttl.Wheel
	slots []int32 // by slot: its bucket, noRow when free
	free  []int32
	now   *int64 // the join's now
}

// newTTL sets up the state TTL of a regular join.
func (j *HashJoin) newTTL(d time.Duration) {
	j.ttl = &joinTTL{evicted: j.env.Metrics.Counter(evictedCounter), ignored: j.env.Metrics.Counter(ignoredCounter)}
	for _, s := range j.sides {
		s.ttl = &sideTTL{wheel: ttl.New(d), now: &j.ttl.now}
	}
}

// attachTTL gives a new bucket b a slot.
func (s *side) attachTTL(b int32) {
	t := s.ttl
	var slot int32
	if k := len(t.free); k > 0 {
		slot = t.free[k-1]
		t.free = t.free[:k-1]
	} else {
		slot = int32(len(t.slots))
		t.slots = append(t.slots, noRow)
	}
	t.slots[slot] = b
	s.buckets.Ref(b).slot = slot
}

// detach frees the slot of a bucket that is gone.
func (t *sideTTL) detach(slot int32) {
	t.wheel.Forget(slot)
	t.slots[slot] = noRow
	t.free = append(t.free, slot)
}

// touch records an access to bucket b's key now.
func (s *side) touch(b int32) {
	if s.ttl != nil {
		s.ttl.wheel.Touch(s.buckets.Ref(b).slot, *s.ttl.now)
	}
}

// expire evicts the keys idle for the TTL at j.ttl.now, from both sides.
func (j *HashJoin) expire() {
	t := j.ttl
	evicted := int64(0)
	for in, s := range j.sides {
		t.expired = s.ttl.wheel.Expire(t.now, t.expired[:0])
		for _, slot := range t.expired {
			b := s.ttl.slots[slot]
			o := j.sides[1-in]
			ob := o.lookupStored(s.buckets.Ref(b).hash, s, s.buckets.Ref(b).head)
			evicted += s.evictBucket(b)
			if ob != noRow {
				evicted += o.evictBucket(ob)
			}
		}
	}
	if evicted > 0 {
		t.evicted.Add(evicted)
		j.gauge()
	}
}

// evictBucket drops every row of bucket b and the bucket, and returns the
// number of rows dropped.
func (s *side) evictBucket(b int32) int64 {
	var key []byte // the rows' entry key, read from the first one held
	for id := s.buckets.Ref(b).head; id != noRow; id = s.rnext.At(id) {
		if key == nil && s.changes.Held(id) {
			key = s.entryKey(id) // forget leaves the buffer alone when given a key
		}
		s.forget(id, key)
		if s.counted {
			s.matches[id] = 0
		}
	}
	n := int64(s.buckets.Ref(b).n)
	s.freeBucket(b)
	return n
}

// NextTimer implements exec.ProcessingTimer: with a state TTL, when the
// next keys of either side may expire; otherwise never.
func (j *HashJoin) NextTimer() time.Time {
	if j.ttl == nil {
		return time.Time{}
	}
	var due int64
	found := false
	for _, s := range j.sides {
		if d, ok := s.ttl.wheel.NextDue(); ok && (!found || d < due) {
			due, found = d, true
		}
	}
	if !found {
		return time.Time{}
	}
	return time.UnixMilli(due)
}

// OnTimer implements exec.ProcessingTimer: it evicts the keys idle for the
// TTL at now. It emits nothing.
func (j *HashJoin) OnTimer(_ context.Context, now time.Time, _ exec.Emitter) error {
	if j.ttl != nil {
		j.ttl.now = now.UnixMilli()
		j.expire()
	}
	return nil
}

// ttlBytes estimates the memory of the sides' TTL tracking.
func (s *side) ttlBytes() int64 {
	if s.ttl == nil {
		return 0
	}
	return s.ttl.wheel.Bytes() + int64(cap(s.ttl.slots))*8 + int64(cap(s.ttl.free))*4
}
