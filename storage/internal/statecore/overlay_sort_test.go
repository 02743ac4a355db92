package statecore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// TestLatestRecordsOrdersLikeBytesCompare checks the radix sort against a
// comparison sort: keys of every length from 0 to 70 bytes over an
// alphabet with 0x00 and 0xff, sharing prefixes longer and shorter than a
// sort item's span, keys that are prefixes of others, and keys written
// several times, in logs small enough for insertion sort and large enough
// for radix passes; written to one table or to several, in runs.
func TestLatestRecordsOrdersLikeBytesCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0x00, 0x01, 'a', 0xfe, 0xff}
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	for round := range 60 {
		n := 1 + rng.IntN(3000)
		if round%10 == 0 {
			n = rng.IntN(40)
		}
		// Keys are drawn from a pool, so that many are written again, and
		// built from a few shared prefixes of up to 40 bytes.
		var prefixes [][]byte
		for range 1 + rng.IntN(3) {
			prefixes = append(prefixes, randBytes(rng.IntN(41)))
		}
		pool := make([][]byte, 1+rng.IntN(2*n+1))
		for i := range pool {
			p := prefixes[rng.IntN(len(prefixes))]
			pool[i] = append(slices.Clone(p[:rng.IntN(len(p)+1)]), randBytes(rng.IntN(31))...)
		}
		// The writes go to tables, in runs of a few writes to one, as
		// snapshots write; some rounds give no table (an unknown prefix),
		// and some give tables one of whose prefixes is a prefix of
		// another's (which the sort must notice).
		var tables [][]byte
		switch round % 3 {
		case 1:
			for i := range 1 + rng.IntN(4) {
				tables = append(tables, storage.AppendString(nil, fmt.Sprintf("stage%d/op%d", i%2, i)))
			}
		case 2:
			tables = [][]byte{[]byte("t"), []byte("tab"), []byte("u")}
		}
		o := newOverlay()
		var pre []byte
		for i := range n {
			if tables != nil && (pre == nil || rng.IntN(8) == 0) {
				pre = tables[rng.IntN(len(tables))]
			}
			k := pool[rng.IntN(len(pool))]
			if rng.IntN(5) == 0 {
				o.add(pre, k, nil, true)
			} else {
				o.add(pre, k, fmt.Append(nil, i), false)
			}
		}
		got := latestRecords(o)
		// The reference: the last write of each key, in key order.
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return bytes.Compare(o.key(a), o.key(b)) })
		var last []int32
		for i, r := range want {
			if i+1 < len(want) && bytes.Equal(o.key(want[i+1]), o.key(r)) {
				continue
			}
			last = append(last, r)
		}
		if !slices.Equal(got, last) {
			for i := range min(len(got), len(last)) {
				if got[i] != last[i] {
					t.Fatalf("round %d (%d writes): position %d is record %d (key %x), want %d (key %x)", round, n, i, got[i], o.key(got[i]), last[i], o.key(last[i]))
				}
			}
			t.Fatalf("round %d (%d writes): %d records, want %d", round, n, len(got), len(last))
		}
	}
}
