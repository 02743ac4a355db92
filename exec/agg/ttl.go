package agg

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ttl"
)

// State TTL (HashConfig.StateTTL). Each group's slot is listed in a
// ttl.Wheel: every batch touches the slots of the groups it reaches, and
// the groups idle for the TTL are evicted before the next batch is applied
// and on the processing-time timer, so that they leave while no input
// comes. An evicted group is freed as if it had lost its last row, but
// nothing is emitted: its last result stays in the output, and a later row
// of its key starts a new group, emitted as an insert (a materialized
// view replaces the old row by its key: mview.View.Upsert). Eviction
// deletes the group's checkpoint entry through the delta, as a freed
// group's. The last accesses are not checkpointed: a restored group counts
// as accessed when it is restored.

// evictedCounter is the name of the counter of evicted groups (EXPLAIN
// ANALYZE).
const evictedCounter = "ttl_evicted_groups"

// ttlState is a HashAgg's state TTL.
type ttlState struct {
	wheel   *ttl.Wheel
	now     int64 // the processing time of the batch being applied (ms)
	evicted *atomic.Int64
	expired []int32 // scratch
}

func newTTLState(d time.Duration, env *exec.Env) *ttlState {
	return &ttlState{wheel: ttl.New(d), evicted: env.Metrics.Counter(evictedCounter)}
}

// expire evicts the groups idle for the TTL at h.ttl.now.
func (h *HashAgg) expire() {
	t := h.ttl
	t.expired = t.wheel.Expire(t.now, t.expired[:0])
	for _, s := range t.expired {
		h.freeSlot(s)
	}
	if len(t.expired) > 0 {
		t.evicted.Add(int64(len(t.expired)))
		h.updateStateMetrics()
	}
}

// NextTimer implements exec.ProcessingTimer: with a state TTL, when the
// next groups may expire; otherwise never.
func (h *HashAgg) NextTimer() time.Time {
	if h.ttl == nil {
		return time.Time{}
	}
	due, ok := h.ttl.wheel.NextDue()
	if !ok {
		return time.Time{}
	}
	return time.UnixMilli(due)
}

// OnTimer implements exec.ProcessingTimer: it evicts the groups idle for
// the TTL at now. It emits nothing.
func (h *HashAgg) OnTimer(_ context.Context, now time.Time, _ exec.Emitter) error {
	if h.ttl != nil && h.keys != nil {
		h.ttl.now = now.UnixMilli()
		h.expire()
	}
	return nil
}

// touchRestored counts the restored groups of slots as accessed now.
func (h *HashAgg) touchRestored(slots []int32) {
	if h.ttl == nil {
		return
	}
	now := h.env.Now().UnixMilli()
	for _, s := range slots {
		h.ttl.wheel.Touch(s, now)
	}
}
