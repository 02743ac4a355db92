package giveway

import (
	"sync"
	"sync/atomic"
	"time"
)

// saturatedAfter is how long a task must have had input waiting for it
// on end for the cores to count as contended: twice the time after which
// Go preempts a goroutine, so that a task Go preempts in the middle of a
// batch finds the background work out of its way.
const saturatedAfter = 20 * time.Millisecond

// Demand is one task's claim on the cores. A task tells its Demand when
// it runs out of input (Waiting) and when it has input again (Busy); a
// task that has not run out for saturatedAfter cannot keep up with its
// input, and only then do the Pacers give way. Below that, the cores have
// room for the background work: a goroutine that becomes runnable gets a
// processor within microseconds, and giving way would only stretch the
// checkpoint, and have the runtime park and wake threads, whose wake-ups
// on a machine with few cores delay the tasks themselves.
type Demand struct {
	busySince atomic.Int64 // monotonic nanoseconds since its input last woke it; 0 while it waits
}

// demands are the open Demands, a copy on every change, so that Pacers
// read them without a lock.
var demands struct {
	mu   sync.Mutex
	list atomic.Pointer[[]*Demand]
}

// epoch anchors the monotonic clock of Demands.
var epoch = time.Now()

// clock returns monotonic nanoseconds, never 0; a variable for tests.
var clock = func() int64 { return int64(time.Since(epoch)) + 1 }

// NewDemand opens the Demand of a task, busy from now on; Close ends it.
func NewDemand() *Demand {
	d := &Demand{}
	d.busySince.Store(clock())
	demands.mu.Lock()
	defer demands.mu.Unlock()
	var list []*Demand
	if old := demands.list.Load(); old != nil {
		list = append(list, *old...)
	}
	list = append(list, d)
	demands.list.Store(&list)
	return d
}

// Close ends the Demand.
func (d *Demand) Close() {
	demands.mu.Lock()
	defer demands.mu.Unlock()
	old := demands.list.Load()
	if old == nil {
		return
	}
	list := make([]*Demand, 0, len(*old))
	for _, o := range *old {
		if o != d {
			list = append(list, o)
		}
	}
	demands.list.Store(&list)
}

// Waiting records that the task ran out of input.
func (d *Demand) Waiting() {
	if d != nil {
		d.busySince.Store(0)
	}
}

// Busy records that the task has input: if it waited, it is busy from
// now on. It reads the clock only then.
func (d *Demand) Busy() {
	if d != nil && d.busySince.Load() == 0 {
		d.busySince.Store(clock())
	}
}

// Saturated reports whether some task has had input waiting for it for
// saturatedAfter on end: whether the cores are contended.
func Saturated() bool {
	list := demands.list.Load()
	if list == nil {
		return false
	}
	now := clock()
	for _, d := range *list {
		if since := d.busySince.Load(); since != 0 && now-since >= int64(saturatedAfter) {
			return true
		}
	}
	return false
}
