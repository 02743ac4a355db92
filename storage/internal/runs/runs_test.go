package runs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// memRun builds run id from entries (sorted, each key once), keeping its
// blocks in memory.
func memRun(t *testing.T, id uint64, entries []Entry) Run {
	t.Helper()
	var blocks [][]byte
	b := NewBuilder(5, id, func(no uint32, block []byte) error {
		if int(no) != len(blocks) {
			t.Fatalf("block %d emitted after %d blocks", no, len(blocks))
		}
		blocks = append(blocks, block)
		return nil
	})
	for _, e := range entries {
		if err := b.Add(e.Key, e.Val, e.Delete); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	// The index survives its stored form.
	idx2, err := DecodeIndex(5, id, idx.Encode(5, id))
	if err != nil {
		t.Fatal(err)
	}
	if idx2.Entries != len(entries) || idx2.Blocks() != len(blocks) || idx2.Bytes != idx.Bytes {
		t.Fatalf("index %+v after decoding, %d entries and %d blocks built", idx2, len(entries), len(blocks))
	}
	// Each block is copied into the buffer the cursor passes, as the
	// Badger backend does: a merge that held on to a value of a block its
	// cursor has moved past would read the next block's bytes.
	return Run{Salt: 5, ID: id, Index: idx2, Fetch: func(no uint32, dst []byte) ([]byte, error) { return append(dst[:0], blocks[no]...), nil }}
}

// randomEntries returns a sorted batch of mutations over keys 0..keys-1
// (some values large enough to fill blocks quickly).
func randomEntries(r *rand.Rand, n, keys int) []Entry {
	m := map[string]Entry{}
	for range n {
		k := fmt.Sprintf("t/%05d", r.IntN(keys))
		if r.IntN(4) == 0 {
			m[k] = Entry{Key: []byte(k), Delete: true}
			continue
		}
		m[k] = Entry{Key: []byte(k), Val: bytes.Repeat([]byte{byte('a' + r.IntN(26))}, r.IntN(3)*r.IntN(40000))}
	}
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b Entry) int { return bytes.Compare(a.Key, b.Key) })
	return out
}

// TestMergeMatchesModel: runs of random mutations, merged, read as a map
// that applies them in order; scans of random ranges and Get agree.
func TestMergeMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		model := map[string]string{}
		var rs []Run
		nruns := 1 + r.IntN(5)
		var top []Entry
		for i := range nruns + 1 {
			es := randomEntries(r, 1+r.IntN(300), 400)
			for _, e := range es {
				if e.Delete {
					delete(model, string(e.Key))
				} else {
					model[string(e.Key)] = string(e.Val)
				}
			}
			if i == nruns {
				top = es
				break
			}
			rs = append(rs, memRun(t, uint64(10*round+i), es))
		}
		for range 10 {
			lo, hi := []byte(fmt.Sprintf("t/%05d", r.IntN(450))), []byte(fmt.Sprintf("t/%05d", r.IntN(450)))
			if r.IntN(3) == 0 {
				hi = nil
			}
			var got []string
			err := Merge(rs, top, lo, hi, false, func(k, v []byte, del bool) error {
				if del {
					t.Fatalf("deletion of %q passed", k)
				}
				got = append(got, string(k)+"="+string(v))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, k := range slices.Sorted(maps.Keys(model)) {
				if k >= string(lo) && (hi == nil || k < string(hi)) {
					want = append(want, k+"="+model[k])
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, [%s, %s): %d entries, want %d", round, lo, hi, len(got), len(want))
			}
		}
		// Compacting with the deletions kept gives one run that reads the same.
		var merged []Entry
		err := Merge(rs, top, nil, nil, true, func(k, v []byte, del bool) error {
			merged = append(merged, Entry{Key: bytes.Clone(k), Val: bytes.Clone(v), Delete: del})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		one := []Run{memRun(t, 999, merged)}
		for k := range 450 {
			key := fmt.Sprintf("t/%05d", k)
			val, ok, _, err := Get(one, []byte(key))
			if err != nil {
				t.Fatal(err)
			}
			want, wantOK := model[key]
			if ok != wantOK || string(val) != want {
				t.Fatalf("round %d: Get(%s) = %q, %v; want %q, %v", round, key, val, ok, want, wantOK)
			}
		}
	}
}

// TestBuilderRefusesUnsortedKeys: a key not after the previous one is an
// error, not a silently broken run.
func TestBuilderRefusesUnsortedKeys(t *testing.T) {
	b := NewBuilder(5, 1, func(uint32, []byte) error { return nil })
	if err := b.Add([]byte("b"), nil, false); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"b", "a"} {
		if err := b.Add([]byte(k), nil, false); err == nil {
			t.Fatalf("key %q after %q accepted", k, "b")
		}
	}
}

// TestDamageIsDetected: a flipped byte, a truncated block and a block
// read as another run's or another position's are ErrCorrupt errors
// naming the run and block.
func TestDamageIsDetected(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	run := memRun(t, 7, randomEntries(r, 2000, 5000))
	if run.Index.Blocks() < 2 {
		t.Fatalf("want several blocks, got %d", run.Index.Blocks())
	}
	good, _ := run.Fetch(1, nil)
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x10
	nop := func([]byte, []byte, bool) error { return nil }
	for name, c := range map[string]struct {
		salt  uint32
		id    uint64
		no    uint32
		block []byte
	}{
		"flipped":        {5, 7, 1, flipped},
		"truncated":      {5, 7, 1, good[:len(good)-9]},
		"other run":      {5, 8, 1, good},
		"other position": {5, 7, 0, good},
		"other owner":    {6, 7, 1, good},
		"empty":          {5, 7, 1, nil},
	} {
		err := DecodeBlock(c.salt, c.id, c.no, c.block, nop)
		if !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
	enc := run.Index.Encode(5, 7)
	if _, err := DecodeIndex(5, 8, enc); !errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("index of another run: got %v", err)
	}
	if _, err := DecodeIndex(6, 7, enc); !errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("index of another owner's run: got %v", err)
	}
	enc[3] ^= 1
	if _, err := DecodeIndex(5, 7, enc); !errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("flipped index: got %v", err)
	}
}

// TestLargeEntryGetsItsOwnBlock: an entry larger than BlockSize is stored
// whole and read back.
func TestLargeEntryGetsItsOwnBlock(t *testing.T) {
	big := bytes.Repeat([]byte{'z'}, 3*BlockSize)
	run := memRun(t, 1, []Entry{{Key: []byte("a"), Val: []byte("1")}, {Key: []byte("b"), Val: big}, {Key: []byte("c"), Val: []byte("3")}})
	v, ok, _, err := Get([]Run{run}, []byte("b"))
	if err != nil || !ok || !bytes.Equal(v, big) {
		t.Fatalf("Get(b) = %d bytes, %v, %v", len(v), ok, err)
	}
	if run.Index.Blocks() != 2 {
		t.Fatalf("%d blocks, want 2 (a and b, then c)", run.Index.Blocks())
	}
}

func BenchmarkBuildAndMerge(b *testing.B) {
	const n = 1_000_000
	entries := make([]Entry, n)
	for i := range entries {
		entries[i] = Entry{Key: fmt.Appendf(nil, "stage1/op0\x00%02x%08d", i%256, i), Val: fmt.Appendf(nil, "value-%09d", i)}
	}
	slices.SortFunc(entries, func(a, b Entry) int { return bytes.Compare(a.Key, b.Key) })
	for b.Loop() {
		var blocks [][]byte
		bl := NewBuilder(5, 1, func(_ uint32, block []byte) error { blocks = append(blocks, block); return nil })
		for _, e := range entries {
			bl.Add(e.Key, e.Val, false)
		}
		idx, _ := bl.Finish()
		run := Run{Salt: 5, ID: 1, Index: idx, Fetch: func(no uint32, _ []byte) ([]byte, error) { return blocks[no], nil }}
		count := 0
		Merge([]Run{run}, nil, nil, nil, false, func([]byte, []byte, bool) error { count++; return nil })
		if count != n {
			b.Fatal(count)
		}
	}
}

// BenchmarkMergeRuns merges nine runs of a checkpoint's shape, as a
// compaction does: each run 200K keys of an aggregate's state (a table's
// prefix, a 2-byte key group, a tag and an 8-byte integer), drawn from
// 1M, so that most keys of a run are in others too, with 10-byte values.
func BenchmarkMergeRuns(b *testing.B) {
	const runs, perRun, space = 9, 200_000, 1_000_000
	rng := rand.New(rand.NewPCG(11, 12))
	var rs []Run
	for id := range runs {
		keys := map[uint64]bool{}
		for len(keys) < perRun {
			keys[rng.Uint64N(space)] = true
		}
		var entries []Entry
		for k := range keys {
			key := fmt.Appendf(nil, "stage1/op0\x00%c%c\x01", byte(k*0x9E3779B97F4A7C15>>56), byte(k>>3))
			key = binary.BigEndian.AppendUint64(key, k)
			entries = append(entries, Entry{Key: key, Val: fmt.Appendf(nil, "v%09d", id)})
		}
		slices.SortFunc(entries, func(a, b Entry) int { return bytes.Compare(a.Key, b.Key) })
		var blocks [][]byte
		bl := NewBuilder(5, uint64(id), func(_ uint32, block []byte) error { blocks = append(blocks, block); return nil })
		for _, e := range entries {
			if err := bl.Add(e.Key, e.Val, false); err != nil {
				b.Fatal(err)
			}
		}
		idx, err := bl.Finish()
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, Run{Salt: 5, ID: uint64(id), Index: idx, Fetch: func(no uint32, dst []byte) ([]byte, error) {
			return append(dst[:0], blocks[no]...), nil
		}})
	}
	b.ResetTimer()
	for b.Loop() {
		count := 0
		err := Merge(rs, nil, nil, nil, true, func([]byte, []byte, bool) error { count++; return nil })
		if err != nil || count < perRun {
			b.Fatal(count, err)
		}
	}
}
