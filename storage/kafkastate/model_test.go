package kafkastate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/internal/kvlog"
	"github.com/eddysql/eddy/storage"
)

// model is what a store should hold: the committed tables and the tables
// as its readers should see them.
type model struct {
	committed, current map[string]map[string]string
}

func cloneTables(m map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for name, tbl := range m {
		out[name] = maps.Clone(tbl)
	}
	return out
}

// bytes is the size of the committed tables as Bytes counts it: every
// key with its table's encoded name, and every value. The store keeps no
// replaced values, so it is exact.
func (m model) bytes() int64 {
	var n int64
	for name, tbl := range m.committed {
		for k, v := range tbl {
			n += int64(len(storage.AppendString(nil, name)) + len(k) + len(v))
		}
	}
	return n
}

// modelValue returns the value a step writes: usually short, sometimes
// empty, and now and then longer than a chunk, so that values grow and
// shrink across the chunk boundary.
func modelValue(r *rand.Rand, step int) string {
	switch n := r.IntN(40); {
	case n == 0:
		return ""
	case n == 1:
		size := chunkSize + r.IntN(chunkSize+chunkSize/4)
		return fmt.Sprint(step) + strings.Repeat("x", size)
	default:
		return fmt.Sprint(step)
	}
}

// TestModel applies random operations to a store and to a model and
// compares every read, across commits, recoveries, reopens (Close and
// Open again with the same config) and compactions of the topic, as the
// suite of storage/storagetest does for the other stores.
func TestModel(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	r := rand.New(rand.NewPCG(7, 11))
	names := []string{"t", "t\x00", "tt", ""}
	alphabet := []byte{0, 'a', 'b', 0xff}
	randKey := func() string {
		b := make([]byte, r.IntN(4))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	m := model{current: map[string]map[string]string{}}
	for _, n := range names {
		m.current[n] = map[string]string{}
	}
	m.committed = cloneTables(m.current)

	s := c.open(t, 0)
	var epoch uint64
	tables := map[string]storage.StateTable{}
	table := func(name string) storage.StateTable {
		if tables[name] == nil {
			tables[name] = tableOf(t, s, name)
		}
		return tables[name]
	}
	checkBytes := func(step int) {
		t.Helper()
		got, err := s.Bytes()
		must(t, err)
		if want := m.bytes(); got != want {
			t.Fatalf("step %d: Bytes = %d, want %d", step, got, want)
		}
	}
	reopen := func() {
		must(t, s.Close())
		s = c.open(t, 0)
		clear(tables)
		m.current = cloneTables(m.committed)
	}
	for step := range 1000 {
		name := names[r.IntN(len(names))]
		tbl, cur := table(name), m.current[name]
		switch op := r.IntN(100); {
		case op < 30:
			k, v := randKey(), modelValue(r, step)
			must(t, tbl.Put([]byte(k), []byte(v)))
			cur[k] = v
		case op < 38:
			k := randKey()
			must(t, tbl.Delete([]byte(k)))
			delete(cur, k)
		case op < 42:
			var l kvlog.Log
			for range r.IntN(4) {
				k := randKey()
				if r.IntN(3) == 0 {
					l.Append(nil, []byte(k), nil, true)
					delete(cur, k)
					continue
				}
				v := fmt.Sprint(step)
				l.Append(nil, []byte(k), []byte(v), false)
				cur[k] = v
			}
			must(t, tbl.WriteLog(&l))
		case op < 47:
			lo, hi := randKey(), randKey()
			var hib []byte
			if r.IntN(4) > 0 {
				hib = []byte(hi)
			}
			must(t, tbl.DeleteRange([]byte(lo), hib))
			for k := range cur {
				if k >= lo && (hib == nil || k < hi) {
					delete(cur, k)
				}
			}
		case op < 60:
			k := randKey()
			v, ok, err := tbl.Get([]byte(k))
			must(t, err)
			if want, wok := cur[k]; ok != wok || string(v) != want {
				t.Fatalf("step %d: Get(%q) on %q = %.20q, %v; want %.20q, %v", step, k, name, v, ok, want, wok)
			}
			if ok && len(v) > 0 {
				v[0] ^= 1 // the value is the caller's
			}
		case op < 70:
			p := randKey()
			var want []string
			for _, kv := range sortedKV(cur) {
				if strings.HasPrefix(kv, p) {
					want = append(want, kv)
				}
			}
			if got := dump(t, tbl, p); !slices.Equal(got, want) {
				t.Fatalf("step %d: Scan(%q) on %q = %.200q, want %.200q", step, p, name, got, want)
			}
		case op < 75:
			lo, hi := randKey(), randKey()
			var hib []byte
			if r.IntN(4) > 0 {
				hib = []byte(hi)
			}
			var got, want []string
			must(t, tbl.ScanRange([]byte(lo), hib, func(k, v []byte) error {
				got = append(got, string(k)+"="+string(v))
				return nil
			}))
			for _, k := range slices.Sorted(maps.Keys(cur)) {
				if k >= lo && (hib == nil || k < hi) {
					want = append(want, k+"="+cur[k])
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: ScanRange(%q, %q) on %q = %.200q, want %.200q", step, lo, hib, name, got, want)
			}
		case op < 77:
			// A scan that writes: it sees the table as of its start.
			want := sortedKV(cur)
			var got []string
			must(t, tbl.Scan(nil, func(k, v []byte) error {
				got = append(got, string(k)+"="+string(v))
				nk := string(k) + "a"
				cur[nk] = "w"
				return tbl.Put([]byte(nk), []byte("w"))
			}))
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: a writing Scan on %q = %.200q, want %.200q", step, name, got, want)
			}
		case op < 87:
			epoch++
			must(t, s.Commit(ctx, epoch))
			m.committed = cloneTables(m.current)
			checkBytes(step)
		case op < 90:
			got, err := s.Recover(ctx)
			must(t, err)
			if got != epoch {
				t.Fatalf("step %d: Recover = %d, want %d", step, got, epoch)
			}
			m.current = cloneTables(m.committed)
			checkBytes(step)
		case op < 91:
			if _, err := s.Rollback(ctx); !errors.Is(err, storage.ErrNoPrevious) {
				t.Fatalf("step %d: Rollback = %v, want ErrNoPrevious", step, err)
			}
		case op < 98:
			reopen()
			got, err := s.Recover(ctx)
			must(t, err)
			if got != epoch {
				t.Fatalf("step %d: after reopening, Recover = %d, want %d", step, got, epoch)
			}
			checkBytes(step)
		default:
			c.Compact()
			reopen()
			checkBytes(step)
		}
	}
	// Compaction left the latest record of each key: no chunk of a value
	// that was replaced by a shorter one or deleted.
	c.Compact()
	reopen()
	checkAll(t, s, m.committed)
}

// checkAll checks that s's tables hold exactly want's.
func checkAll(t *testing.T, s storage.StateStore, want map[string]map[string]string) {
	t.Helper()
	for name, tbl := range want {
		got := dump(t, tableOf(t, s, name), "")
		if w := sortedKV(tbl); !slices.Equal(got, w) {
			t.Fatalf("table %q holds %.200q, want %.200q", name, got, w)
		}
	}
}

// TestModelSizes checks Bytes against the keys' and values' lengths, with
// values around the chunk size.
func TestModelSizes(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	s := c.open(t, 0)
	tbl := tableOf(t, s, "sizes")
	prefix := int64(len(storage.AppendString(nil, "sizes")))
	var want int64
	for i, n := range []int{0, 1, chunkSize - 1, chunkSize, chunkSize + 1, 3 * chunkSize} {
		k := fmt.Sprintf("k%d", i)
		must(t, tbl.Put([]byte(k), bytes.Repeat([]byte{byte(i)}, n)))
		want += prefix + int64(len(k)+n)
	}
	must(t, s.Commit(ctx, 1))
	for _, how := range []string{"after the commit", "after reopening"} {
		if how == "after reopening" {
			s = reopened(t, c, s)
		}
		got, err := s.Bytes()
		must(t, err)
		if got != want {
			t.Fatalf("%s: Bytes = %d, want %d", how, got, want)
		}
	}
}

// reopened closes s and opens its partition again.
func reopened(t *testing.T, c *cluster, s *Store) *Store {
	t.Helper()
	must(t, s.Close())
	return c.open(t, s.b.p.part)
}
