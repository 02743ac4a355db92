package ttl

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestExpiresWithinGranularity checks that a slot expires no sooner than
// TTL after its last access and no later than TTL + Granularity, for
// accesses at every offset within a bucket.
func TestExpiresWithinGranularity(t *testing.T) {
	w := New(1600 * time.Millisecond) // granularity 100ms
	if w.Granularity() != 100*time.Millisecond {
		t.Fatalf("granularity %v, want 100ms", w.Granularity())
	}
	const base = 1_000_000
	for s := range int32(100) {
		w.Touch(s, base+int64(s)*7)
	}
	expiredAt := map[int32]int64{}
	for now := int64(base); now < base+3000; now++ {
		for _, s := range w.Expire(now, nil) {
			if _, dup := expiredAt[s]; dup {
				t.Fatalf("slot %d expired twice", s)
			}
			expiredAt[s] = now
		}
	}
	for s := range int32(100) {
		last := base + int64(s)*7
		at, ok := expiredAt[s]
		if !ok {
			t.Fatalf("slot %d never expired", s)
		}
		if at < last+1600 || at > last+1600+100 {
			t.Errorf("slot %d accessed at %d expired at %d: want within [%d, %d]", s, last, at, last+1600, last+1700)
		}
	}
	if w.Len() != 0 {
		t.Errorf("%d slots still listed", w.Len())
	}
}

// TestRetouchedStays checks that touching a slot postpones its expiry, and
// that a freed slot does not expire.
func TestRetouchedStays(t *testing.T) {
	w := New(time.Second)
	w.Touch(1, 0)
	w.Touch(2, 0)
	w.Touch(3, 0)
	w.Forget(3)
	for now := int64(0); now <= 5000; now += 10 {
		w.Touch(1, now) // kept busy
		if got := w.Expire(now, nil); len(got) > 0 {
			if !slices.Equal(got, []int32{2}) || now < 1000 || now > 1000+w.gran {
				t.Fatalf("at %d expired %v; want slot 2 once, within [1000, %d]", now, got, 1000+w.gran)
			}
		}
	}
	got := w.Expire(5000+1000+w.gran, nil)
	if !slices.Equal(got, []int32{1}) {
		t.Fatalf("after slot 1 went idle: expired %v, want [1]", got)
	}
	// A freed slot reused by a new key expires after the new key's access.
	w.Touch(3, 10_000)
	if got := w.Expire(10_999, nil); len(got) != 0 {
		t.Fatalf("reused slot expired early: %v", got)
	}
	if got := w.Expire(11_000+w.gran, nil); !slices.Equal(got, []int32{3}) {
		t.Fatalf("reused slot: expired %v, want [3]", got)
	}
}

// TestTickCostFollowsExpiring checks that a tick examines the slots of the
// buckets it fires, not the slots held: with a million slots accessed
// recently and a hundred idle ones, the ticks that expire the idle ones
// examine about a hundred slots; and a busy slot is examined at most once
// per TTL however often it is touched.
func TestTickCostFollowsExpiring(t *testing.T) {
	w := New(time.Hour)
	const held, idle = 1_000_000, 100
	for s := range int32(idle) {
		w.Touch(s, 0)
	}
	start := int64(30 * time.Minute / time.Millisecond)
	for s := int32(idle); s < idle+held; s++ {
		w.Touch(s, start)
	}
	var got []int32
	for now := int64(0); now <= int64(time.Hour/time.Millisecond)+w.gran; now += 1000 {
		got = w.Expire(now, got)
	}
	if len(got) != idle {
		t.Fatalf("expired %d slots, want the %d idle ones", len(got), idle)
	}
	if ex := w.Examined(); ex != idle {
		t.Fatalf("ticks examined %d slots to expire %d among %d held", ex, idle, held+idle)
	}

	// A slot touched at every tick is examined once per TTL.
	w = New(time.Second)
	for now := int64(0); now < 10_000; now += 5 {
		w.Touch(7, now)
		w.Expire(now, nil)
	}
	if ex := w.Examined(); ex > 11 {
		t.Fatalf("a busy slot was examined %d times in 10 TTLs", ex)
	}
}

// TestLongGap checks a wheel whose Expire was not called for many TTLs,
// and a clock that goes back.
func TestLongGap(t *testing.T) {
	w := New(100 * time.Millisecond)
	w.Touch(1, 0)
	w.Touch(2, 50)
	w.Touch(3, 1_000_000) // touched long after, without an Expire between
	got := w.Expire(1_000_050, nil)
	slices.Sort(got)
	if !slices.Equal(got, []int32{1, 2}) {
		t.Fatalf("expired %v, want [1 2]", got)
	}
	if got := w.Expire(900, nil); len(got) != 0 { // the clock went back: taken as 1_000_050
		t.Fatalf("expired %v", got)
	}
	if got := w.Expire(1_000_100+w.gran, nil); !slices.Equal(got, []int32{3}) {
		t.Fatalf("expired %v, want [3]", got)
	}
	if _, ok := w.NextDue(); ok {
		t.Fatal("a timer is due with nothing listed")
	}
}

// TestRandomAgainstModel compares the wheel with a map of last accesses.
func TestRandomAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	w := New(500 * time.Millisecond)
	last := map[int32]int64{}
	now := int64(1000)
	for range 20000 {
		now += r.Int64N(20)
		switch x := r.IntN(10); {
		case x < 6:
			s := int32(r.IntN(300))
			w.Touch(s, now)
			last[s] = now
		case x < 7:
			s := int32(r.IntN(300))
			w.Forget(s)
			delete(last, s)
		default:
			if due, ok := w.NextDue(); ok && due > now {
				continue
			}
			for _, s := range w.Expire(now, nil) {
				l, ok := last[s]
				if !ok || l+500 > now {
					t.Fatalf("at %d expired slot %d (last %d, live %v)", now, s, l, ok)
				}
				delete(last, s)
			}
			for s, l := range last {
				if l+500+w.gran <= now {
					t.Fatalf("at %d slot %d idle since %d is still held", now, s, l)
				}
			}
		}
	}
}
