package storagetest

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// model is what a job's state should hold: the committed tables and the
// tables as the store's readers should see them.
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

// bytes is the size of the committed tables, as StateStore.Bytes counts
// it: every key with its table's encoded name, and every value.
func (m model) bytes() int64 {
	var n int64
	for name, tbl := range m.committed {
		for k, v := range tbl {
			n += int64(len(storage.AppendString(nil, name)) + len(k) + len(v))
		}
	}
	return n
}

// checkBytes compares s.Bytes with the model's committed size: a store
// counts at least every committed key and value, and may count replaced
// values and deletions it has not compacted away yet.
func checkBytes(t *testing.T, step int, s storage.StateStore, m model) {
	t.Helper()
	got, err := s.Bytes()
	must(t, err)
	if want := m.bytes(); got < want {
		t.Fatalf("step %d: Bytes = %d, want at least %d", step, got, want)
	}
}

// runStateModel applies random operations to a store and to a model and
// compares every read, across commits, recoveries, store reopens and DB
// restarts.
func runStateModel(t *testing.T, h Harness) {
	ctx := context.Background()
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
	m := model{committed: map[string]map[string]string{}, current: map[string]map[string]string{}}
	for _, n := range names {
		m.current[n] = map[string]string{}
	}
	m.committed = cloneTables(m.current)

	db := open(t, h)
	s := state(t, db, "model")
	var epoch uint64
	tables := map[string]storage.StateTable{}
	tableOf := func(name string) storage.StateTable {
		if tables[name] == nil {
			tables[name] = table(t, s, name)
		}
		return tables[name]
	}
	for step := range 1500 {
		name := names[r.IntN(len(names))]
		tbl, cur := tableOf(name), m.current[name]
		what := ""
		switch op := r.IntN(100); {
		case op < 35:
			k, v := randKey(), fmt.Sprint(step)
			what = fmt.Sprintf("Put(%q)", k)
			must(t, tbl.Put([]byte(k), []byte(v)))
			cur[k] = v
		case op < 45:
			k := randKey()
			what = fmt.Sprintf("Delete(%q)", k)
			must(t, tbl.Delete([]byte(k)))
			delete(cur, k)
		case op < 50:
			lo, hi := randKey(), randKey()
			var hib []byte
			if r.IntN(4) > 0 {
				hib = []byte(hi)
			}
			what = fmt.Sprintf("DeleteRange(%q, %q)", lo, hib)
			must(t, tbl.DeleteRange([]byte(lo), hib))
			for k := range cur {
				if k >= lo && (hib == nil || k < hi) {
					delete(cur, k)
				}
			}
		case op < 65:
			k := randKey()
			what = fmt.Sprintf("Get(%q)", k)
			v, ok, err := tbl.Get([]byte(k))
			must(t, err)
			if want, wok := cur[k]; ok != wok || string(v) != want {
				t.Fatalf("step %d %s on %q = %q, %v; want %q, %v", step, what, name, v, ok, want, wok)
			}
		case op < 80:
			p := randKey()
			what = fmt.Sprintf("Scan(%q)", p)
			var want []string
			for _, k := range slices.Sorted(maps.Keys(cur)) {
				if strings.HasPrefix(k, p) {
					want = append(want, k+"="+cur[k])
				}
			}
			if got := dump(t, tbl, p); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("step %d %s on %q = %q, want %q", step, what, name, got, want)
			}
		case op < 90:
			epoch++
			must(t, s.Commit(ctx, epoch))
			m.committed = cloneTables(m.current)
			checkBytes(t, step, s, m)
		case op < 94:
			got, err := s.Recover(ctx)
			must(t, err)
			if got != epoch {
				t.Fatalf("step %d: Recover = %d, want %d", step, got, epoch)
			}
			m.current = cloneTables(m.committed)
			checkBytes(t, step, s, m)
		case op < 98 || h.Reopen == nil:
			must(t, s.Close())
			s = state(t, db, "model")
			clear(tables)
			m.current = cloneTables(m.committed)
			if r.IntN(2) == 0 {
				checkBytes(t, step, s, m) // sized by a scan, kept up to date from then on
			}
		default:
			db = reopen(t, h, db)
			s = state(t, db, "model")
			clear(tables)
			m.current = cloneTables(m.committed)
		}
	}
}
