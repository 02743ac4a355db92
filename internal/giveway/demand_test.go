package giveway

import (
	"testing"
	"time"
)

// fakeClock sets the Demands' clock to a value the test moves, and
// restores it at the end.
func fakeClock(t *testing.T) *int64 {
	now := int64(time.Hour)
	was := clock
	clock = func() int64 { return now }
	t.Cleanup(func() { clock = was })
	return &now
}

// TestSaturated checks that a task counts as saturated once it has had
// input for saturatedAfter on end, not before, not while it waits, and
// not once closed.
func TestSaturated(t *testing.T) {
	now := fakeClock(t)
	if Saturated() {
		t.Fatal("saturated with no task")
	}
	d, other := NewDemand(), NewDemand()
	other.Waiting()
	defer other.Close()
	*now += int64(saturatedAfter) - 1
	if Saturated() {
		t.Fatal("saturated before saturatedAfter of work")
	}
	*now++
	if !Saturated() {
		t.Fatal("not saturated after saturatedAfter of work")
	}
	d.Waiting()
	if Saturated() {
		t.Fatal("saturated while the task waits for input")
	}
	*now += int64(time.Minute)
	d.Busy() // input again: busy from now on
	*now += int64(saturatedAfter) / 2
	d.Busy() // more input, without a wait: the same busy spell
	if Saturated() {
		t.Fatal("saturated half saturatedAfter after input came back")
	}
	*now += int64(saturatedAfter) / 2
	if !Saturated() {
		t.Fatal("not saturated after a busy spell of saturatedAfter")
	}
	d.Close()
	if Saturated() {
		t.Fatal("saturated after the busy task closed")
	}
	var none *Demand
	none.Busy() // a task without a Demand (tests) does nothing
	none.Waiting()
}
