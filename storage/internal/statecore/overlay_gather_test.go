package statecore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddysql/eddy/internal/giveway"
	"github.com/eddysql/eddy/storage"
)

// TestGatherMatchesInPlace commits an overlay of several buckets' worth
// of records (keys written again, deletions, empty values, a range
// deletion over committed keys, three tables) with its records read in
// place and gathered: the mutations must be the same, in the same order.
func TestGatherMatchesInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	tables := [][]byte{
		storage.AppendString(nil, "stage1/op2"),
		storage.AppendString(nil, "stage0/op1"),
		storage.AppendString(nil, "stage2/op0"),
	}
	o := newOverlay()
	const writes = 8<<minBucketShift + 123
	for i := range writes {
		pre := tables[i>>9%len(tables)]
		k := fmt.Appendf(nil, "%06d", rng.IntN(3*writes/4))
		switch r := rng.IntN(100); {
		case r < 10:
			if err := o.del(pre, k); err != nil {
				t.Fatal(err)
			}
		case r < 15:
			if err := o.put(pre, k, []byte{}); err != nil {
				t.Fatal(err)
			}
		default:
			v := bytes.Repeat([]byte{byte(i)}, rng.IntN(40))
			if err := o.put(pre, k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	lo := append(bytes.Clone(tables[0]), "001"...)
	hi := append(bytes.Clone(tables[0]), "002"...)
	o.deleteRange(lo, hi)
	committed := map[string]bool{}
	for i := range 2000 {
		committed[string(tables[0])+fmt.Sprintf("%06d", 1000+i)] = true
	}
	if n := len(o.sorted()); n <= 4<<minBucketShift {
		t.Fatalf("%d records sorted, want over four buckets' worth", n)
	}

	mutations := func(least int) []Mutation {
		t.Helper()
		defer func(was int) { gatherMin = was }(gatherMin)
		gatherMin = least
		each, err := (&Store{b: fakeBackend{data: committed}}).mutations(o)
		if err != nil {
			t.Fatal(err)
		}
		return collect(each)
	}
	inPlace := mutations(math.MaxInt)
	var dels, empty int
	for i, m := range inPlace {
		if i > 0 && bytes.Compare(inPlace[i-1].Key, m.Key) >= 0 {
			t.Fatalf("mutation %d: %q after %q", i, m.Key, inPlace[i-1].Key)
		}
		if m.Delete {
			dels++
		} else if len(m.Val) == 0 {
			empty++
		}
	}
	if dels == 0 || empty == 0 {
		t.Fatalf("%d deletions and %d empty values among %d mutations: the test needs both", dels, empty, len(inPlace))
	}

	// The space past the ranks: as much as the records take, in one pass;
	// room for about two buckets, in several passes; less than a bucket,
	// when the records are read in place.
	biggest := slices.Max(bucketSizes(o))
	for _, tc := range []struct {
		name   string
		fresh  int
		passes bool
	}{
		{"one pass", 64 << 20, false},
		{"passes", 2*biggest + 100, true},
		{"in place", biggest / 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(was int) { gatherFresh = was }(gatherFresh)
			gatherFresh = tc.fresh
			dropSortScratch()
			if g := gather(o, o.sorted()); tc.name == "in place" {
				if g != nil {
					t.Fatalf("gathered %d bytes of buckets in %d of space", biggest, len(g.buf))
				}
			} else {
				if g == nil {
					t.Fatalf("no gather with %d bytes of space", tc.fresh)
				}
				total := 0
				for _, n := range g.sizes {
					total += n
				}
				if several := len(g.buf) < total; several != tc.passes {
					t.Fatalf("%d bytes of records in %d of space: several passes %v, want %v", total, len(g.buf), several, tc.passes)
				}
				g.release()
			}
			dropSortScratch()
			gathered := mutations(0)
			if len(inPlace) != len(gathered) {
				t.Fatalf("%d mutations gathered, %d read in place", len(gathered), len(inPlace))
			}
			for i, want := range inPlace {
				got := gathered[i]
				if !bytes.Equal(got.Key, want.Key) || !bytes.Equal(got.Val, want.Val) || got.Delete != want.Delete || (got.Val == nil) != (want.Val == nil) {
					t.Fatalf("mutation %d gathered: %q=%q del=%v; in place %q=%q del=%v", i, got.Key, got.Val, got.Delete, want.Key, want.Val, want.Delete)
				}
			}
		})
	}
}

// bucketSizes returns the bytes of the gather buckets of o's records.
func bucketSizes(o *overlay) []int {
	g := gather(o, o.sorted())
	defer g.release()
	return slices.Clone(g.sizes)
}

// dropSortScratch empties the sort's kept scratch, so that the next sort
// or gather allocates what it asks for.
func dropSortScratch() {
	sortScratch.mu.Lock()
	sortScratch.buf = nil
	sortScratch.mu.Unlock()
}

// TestGatherStopsAtAnError checks that the mutations of a gathered
// commit stop at fn's first error and return it, and that the space goes
// back for the next gather.
func TestGatherStopsAtAnError(t *testing.T) {
	o := newOverlay()
	for i := range 3 << minBucketShift {
		if err := o.put(nil, fmt.Appendf(nil, "%06d", (i*7919)%(3<<minBucketShift)), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	defer func(was int) { gatherMin = was }(gatherMin)
	gatherMin = 0
	each, err := (&Store{b: fakeBackend{}}).mutations(o)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	calls := 0
	err = each(func(m Mutation) error {
		if calls++; calls == 5000 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 5000 {
		t.Fatalf("stopped after %d calls with %v, want 5000 and %v", calls, err, stop)
	}
	got := collect(each)
	if len(got) != 3<<minBucketShift || string(got[0].Key) != "000000" || string(got[len(got)-1].Key) != fmt.Sprintf("%06d", 3<<minBucketShift-1) {
		t.Fatalf("the next gather gave %d mutations", len(got))
	}
}

// TestBucketShift checks the buckets' sizes: at least 1<<minBucketShift
// records, and no more than maxBuckets buckets.
func TestBucketShift(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want uint
	}{
		{0, minBucketShift},
		{1, minBucketShift},
		{maxBuckets << minBucketShift, minBucketShift},
		{maxBuckets<<minBucketShift + 1, minBucketShift + 1},
		{maxBuckets << (minBucketShift + 3), minBucketShift + 3},
		{1 << 30, 20},
	} {
		if got := bucketShift(tc.n); got != tc.want {
			t.Errorf("bucketShift(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestGatherPaces checks that a gather is background work that looks
// whether to give way, as the sort before it is (TestCommitPacesItsSort):
// the overlay is sorted before it gets a pacer, so the looks are the
// gather's.
func TestGatherPaces(t *testing.T) {
	o := newOverlay()
	const n = 300_000
	var k [8]byte
	for i := range uint64(n) {
		binary.BigEndian.PutUint64(k[:], i*0x9e3779b97f4a7c15)
		if err := o.put(nil, k[:], k[:4]); err != nil {
			t.Fatal(err)
		}
	}
	order := o.sorted()
	o.pace = new(giveway.Pacer)
	before := giveway.Looks()
	g := gather(o, order)
	if g == nil {
		t.Fatal("no gather")
	}
	defer g.release()
	seen := 0
	if err := g.each(func(_, _ []byte, _ bool) error { seen++; return nil }); err != nil || seen != n {
		t.Fatalf("%d records gathered, %v", seen, err)
	}
	if giveway.Looks() == before {
		t.Fatal("the gather never looked whether to give way")
	}
}

// TestGatherOfNothing commits an overlay whose every write a range
// deletion removed: no record to gather, only the committed keys the
// range covers to delete.
func TestGatherOfNothing(t *testing.T) {
	o := newOverlay()
	for i := range 100 {
		if err := o.put(nil, fmt.Appendf(nil, "k%03d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	o.deleteRange([]byte("k"), []byte("l"))
	if g := gather(o, o.sorted()); g != nil {
		t.Fatalf("gathered %d records of none", g.n)
	}
	defer func(was int) { gatherMin = was }(gatherMin)
	gatherMin = 0
	each, err := (&Store{b: fakeBackend{data: map[string]bool{"k007": true, "k050": true}}}).mutations(o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range collect(each) {
		got = append(got, show(m.Key, m.Val, m.Delete))
	}
	if want := []string{"k007-", "k050-"}; !slices.Equal(got, want) {
		t.Fatalf("mutations %v, want %v", got, want)
	}
}
