package statecore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// The benchmarks buffer a checkpoint's writes: benchN distinct keys of
// benchKeyLen bytes with values of benchValLen bytes.
const (
	benchN      = 1_000_000
	benchKeyLen = 10
	benchValLen = 15
)

// benchEntries returns n random keys and n values, back to back.
func benchEntries(n int) (keys, vals []byte) {
	rng := rand.New(rand.NewPCG(5, 6))
	keys = make([]byte, n*benchKeyLen)
	vals = make([]byte, n*benchValLen)
	for i := range keys {
		keys[i] = byte(rng.Uint32())
	}
	for i := range vals {
		vals[i] = byte(rng.Uint32())
	}
	return keys, vals
}

func entry(keys, vals []byte, i int) ([]byte, []byte) {
	return keys[i*benchKeyLen : (i+1)*benchKeyLen], vals[i*benchValLen : (i+1)*benchValLen]
}

// BenchmarkOverlayPut buffers writes of benchN distinct keys into an
// overlay, a new one after every benchN writes, as a commit would.
func BenchmarkOverlayPut(b *testing.B) {
	keys, vals := benchEntries(benchN)
	b.ReportAllocs()
	o, i := newOverlay(), 0
	for b.Loop() {
		if i == benchN {
			o, i = newOverlay(), 0
		}
		k, v := entry(keys, vals, i)
		if err := o.put(nil, k, v); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkTablePut is BenchmarkOverlayPut through StateTable.Put: the
// guard, the store's lock and the table's prefix.
func BenchmarkTablePut(b *testing.B) {
	keys, vals := benchEntries(benchN)
	s := &Store{job: "bench", b: fakeBackend{}, g: guard.New(), live: newOverlay(), tables: map[string]*table{}}
	tbl, err := s.Table("stage0/op1", storage.TableOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == benchN {
			s.live, i = newOverlay(), 0
		}
		k, v := entry(keys, vals, i)
		if err := tbl.Put(k, v); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// filled returns an overlay of benchN writes of distinct keys, each
// under the prefix of one of tables tables (none when tables is 0).
func filled(b *testing.B, tables int) *overlay {
	keys, vals := benchEntries(benchN)
	var prefixes [][]byte
	for i := range tables {
		prefixes = append(prefixes, storage.AppendString(nil, fmt.Sprintf("stage%d/op1", i)))
	}
	o := newOverlay()
	for i := range benchN {
		var pre []byte
		if tables > 0 {
			pre = prefixes[i%tables]
		}
		k, v := entry(keys, vals, i)
		if err := o.put(pre, k, v); err != nil {
			b.Fatal(err)
		}
	}
	return o
}

// BenchmarkOverlaySorted sorts an overlay of benchN writes: of bare keys,
// and of keys spread over four tables (keys with a common prefix).
func BenchmarkOverlaySorted(b *testing.B) {
	for _, tables := range []int{0, 4} {
		b.Run(fmt.Sprintf("tables=%d", tables), func(b *testing.B) {
			o := filled(b, tables)
			b.ReportAllocs()
			for b.Loop() {
				o.ordered, o.tree = false, nil
				if got := len(o.sorted()); got != benchN {
					b.Fatalf("sorted %d keys, want %d", got, benchN)
				}
			}
		})
	}
}

// BenchmarkOverlayMutations turns a sorted overlay of benchN writes into
// the backend's mutations, the rest of a commit's work before the
// backend's.
func BenchmarkOverlayMutations(b *testing.B) {
	o := filled(b, 4)
	o.sorted()
	s := &Store{b: fakeBackend{}}
	b.ReportAllocs()
	for b.Loop() {
		each, err := s.mutations(o)
		n := 0
		if err == nil {
			err = each(func(Mutation) error { n++; return nil })
		}
		if err != nil || n != benchN {
			b.Fatalf("%d mutations, %v", n, err)
		}
	}
}

// BenchmarkOverlayCommitLarge sorts a large overlay and reads its
// mutations, as the commit of a join's new rows does: 4M writes, too many
// for the caches, of keys shaped like a join's entries (the table's
// prefix, a 2-byte key group, a tag, a join key shared by many rows, an
// 8-byte identity) with 48-byte values, written in the order of arrival,
// to the tables of three operators in turn, 64K writes at a time.
func BenchmarkOverlayCommitLarge(b *testing.B) {
	const n = 4 << 20
	rng := rand.New(rand.NewPCG(7, 8))
	tables := [][]byte{storage.AppendString(nil, "stage1/op2"), storage.AppendString(nil, "stage0/op1"), storage.AppendString(nil, "stage2/op0")}
	o := newOverlay()
	var k [1 + 2 + 1 + 9 + 8]byte
	v := make([]byte, 48)
	for i := range n {
		jk := rng.Uint64N(5000)
		g := uint16(jk * 0x9E3779B97F4A7C15 >> 56)
		k[0], k[1], k[2], k[3] = 0, byte(g>>8), byte(g), 1
		binary.BigEndian.PutUint64(k[4:], jk)
		k[12] = 0
		binary.BigEndian.PutUint64(k[13:], uint64(i+1))
		v[0] = byte(i)
		if err := o.put(tables[i>>16%len(tables)], k[:], v); err != nil {
			b.Fatal(err)
		}
	}
	s := &Store{b: fakeBackend{}}
	b.ReportAllocs()
	for b.Loop() {
		o.ordered, o.tree = false, nil
		if got := len(o.sorted()); got != n {
			b.Fatalf("sorted %d keys, want %d", got, n)
		}
		each, err := s.mutations(o)
		var sum int
		if err == nil {
			err = each(func(m Mutation) error { sum += int(m.Key[len(m.Key)-1]) + int(m.Val[0]); return nil })
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
