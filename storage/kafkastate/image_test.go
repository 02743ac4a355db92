package kafkastate

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkSnapshot checks s's invariants (blocks neither empty nor over
// maxBlock, keys in order across them, size and count) and that it holds
// exactly want.
func checkSnapshot(t *testing.T, s *snapshot, want map[string]string) {
	t.Helper()
	var prev []byte
	var size int64
	n := 0
	for bi, b := range s.blocks {
		if len(b) == 0 || len(b) > maxBlock {
			t.Fatalf("block %d of %d entries", bi, len(b))
		}
		for _, e := range b {
			if n > 0 && bytes.Compare(prev, e.key) >= 0 {
				t.Fatalf("key %q after %q", e.key, prev)
			}
			if w, ok := want[string(e.key)]; !ok || w != string(e.val) {
				t.Fatalf("key %q = %q, want %q (%v)", e.key, e.val, w, ok)
			}
			prev, size, n = e.key, size+int64(len(e.key)+len(e.val)), n+1
		}
	}
	if n != len(want) || s.keys != n || s.size != size {
		t.Fatalf("%d keys (counted %d, size %d of %d), want %d", n, s.keys, s.size, size, len(want))
	}
}

// TestImage applies random batches of changes to snapshots and to a map,
// and checks get, ascend and the snapshots' invariants after each, and
// that an earlier snapshot is unchanged by later ones.
func TestImage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	want := map[string]string{}
	s := &snapshot{}
	key := func() string { return fmt.Sprintf("%05d", r.IntN(5000)) }
	for round := range 150 {
		prev, prevWant := s, maps.Clone(want)
		batch := map[string]change{}
		n := r.IntN(400)
		if round%50 == 0 {
			n = 3000 // a bulk load
		}
		for range n {
			k := key()
			if r.IntN(3) == 0 {
				batch[k] = change{key: []byte(k), del: true}
				delete(want, k)
				continue
			}
			v := fmt.Sprint(round)
			batch[k] = change{key: []byte(k), val: []byte(v), chunks: 1}
			want[k] = v
		}
		chs := slices.Collect(maps.Values(batch))
		sortChanges(chs)
		s = prev.apply(chs, uint64(round+1))
		checkSnapshot(t, s, want)
		checkSnapshot(t, prev, prevWant)
		if s.epoch != uint64(round+1) {
			t.Fatalf("epoch %d after round %d", s.epoch, round)
		}
		for range 20 {
			k := key()
			v, ok := s.get([]byte(k))
			if w, wok := want[k]; ok != wok || string(v) != w {
				t.Fatalf("get(%q) = %q, %v; want %q, %v", k, v, ok, w, wok)
			}
		}
		lo, hi := key(), key()
		var hib []byte
		if r.IntN(5) > 0 {
			hib = []byte(hi)
		}
		var got, exp []string
		if err := s.ascend([]byte(lo), hib, func(k, v []byte) error {
			got = append(got, string(k))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if k >= lo && (hib == nil || k < hi) {
				exp = append(exp, k)
			}
		}
		if !slices.Equal(got, exp) {
			t.Fatalf("ascend(%q, %q) = %d keys, want %d", lo, hib, len(got), len(exp))
		}
	}
}
