package exec

import (
	"sync"
	"testing"
)

// TestSharedValue: a key's value is made once, by the first caller, and
// every later caller gets it, from any goroutine; keys of distinct types
// do not collide.
func TestSharedValue(t *testing.T) {
	type keyA struct{ s string }
	type keyB struct{ s string }
	var s Shared
	made := 0
	got := make([]*int, 8)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range got {
		wg.Go(func() {
			v := s.Value(keyA{"x"}, func() any { mu.Lock(); made++; mu.Unlock(); return new(int) }).(*int)
			got[i] = v
		})
	}
	wg.Wait()
	if made != 1 {
		t.Fatalf("the value was made %d times", made)
	}
	for _, v := range got {
		if v != got[0] {
			t.Fatal("callers got different values")
		}
	}
	if b := s.Value(keyB{"x"}, func() any { return new(int) }).(*int); b == got[0] {
		t.Fatal("keys of different types share a value")
	}
	if a := s.Value(keyA{"y"}, func() any { return new(int) }).(*int); a == got[0] {
		t.Fatal("different keys share a value")
	}
}
