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
	check := func(want bool, when string) {
		t.Helper()
		if got := Saturated(); got != want {
			t.Fatalf("%s: saturated %v, want %v", when, got, want)
		}
	}
	check(false, "no task")
	d, other := NewDemand(), NewDemand()
	other.Waiting()
	defer other.Close()
	*now += int64(saturatedAfter) - 1
	check(false, "before saturatedAfter of work")
	*now++
	check(true, "after saturatedAfter of work")
	d.Waiting()
	check(false, "while the task waits for input")
	*now += int64(time.Minute)
	d.Busy() // input again: busy from now on
	*now += int64(saturatedAfter) / 2
	d.Busy() // more input, without a wait: the same busy spell
	check(false, "half saturatedAfter after input came back")
	*now += int64(saturatedAfter) / 2
	check(true, "after a busy spell of saturatedAfter")
	d.Close()
	check(false, "after the busy task closed")
	var none *Demand
	none.Busy() // a task without a Demand (tests) does nothing
	none.Waiting()
}
