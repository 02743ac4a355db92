package statecore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// testBackend is a Backend in a map. When scanGate is set, a Scan
// closes scanWaits and waits for scanGate; when failCommit is set, Commit
// fails with it. It has only the methods the tests call.
type testBackend struct {
	Backend
	mu         sync.Mutex
	data       map[string]string
	epoch      uint64
	scanGate   chan struct{}
	scanWaits  chan struct{}
	failCommit error
}

func (b *testBackend) Get(key []byte) ([]byte, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.data[string(key)]
	if !ok {
		return nil, false, nil
	}
	return []byte(v), true, nil
}

func (b *testBackend) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	b.mu.Lock()
	gate, waits := b.scanGate, b.scanWaits
	b.scanGate = nil
	var keys []string
	for k := range b.data {
		if k >= string(lo) && k < string(hi) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = b.data[k]
	}
	b.mu.Unlock()
	if gate != nil {
		close(waits)
		<-gate
	}
	for i, k := range keys {
		if err := fn([]byte(k), []byte(vals[i])); err != nil {
			return err
		}
	}
	return nil
}

func (b *testBackend) Commit(_ context.Context, each Mutations, epoch uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failCommit != nil {
		return b.failCommit
	}
	muts := collect(each)
	if !slices.IsSortedFunc(muts, func(a, b Mutation) int { return strings.Compare(string(a.Key), string(b.Key)) }) {
		return errors.New("mutations out of order")
	}
	for _, m := range muts {
		if m.Delete {
			delete(b.data, string(m.Key))
		} else {
			b.data[string(m.Key)] = string(m.Val)
		}
	}
	b.epoch = epoch
	return nil
}

func (b *testBackend) Epoch() (uint64, error) { return b.epoch, nil }
func (b *testBackend) Size() (int64, error)   { return 0, nil }
func (b *testBackend) Close() error           { return nil }

// dumpTable prints a table's keys and values in order.
func dumpTable(t *testing.T, tbl storage.StateTable) string {
	t.Helper()
	var out []string
	if err := tbl.Scan(nil, func(k, v []byte) error {
		out = append(out, string(k)+"="+string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

// TestReadsDuringCommit reads and writes a table while a commit is
// turning the frozen overlay into mutations (its span's Scan held up),
// so that the race detector sees the readers and the commit share the
// frozen overlay; then fails a commit and checks that its writes were put
// back under the newer ones.
func TestReadsDuringCommit(t *testing.T) {
	b := &testBackend{data: map[string]string{}}
	s, err := New("job", b, guard.New())
	if err != nil {
		t.Fatal(err)
	}
	tblI, err := s.Table("t", storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tbl := tblI.(*table)
	put := func(k, v string) {
		t.Helper()
		if err := tbl.Put([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		put(fmt.Sprintf("k%03d", i), "1")
	}
	if err := s.Commit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		put(fmt.Sprintf("k%03d", i), "2")
	}
	if err := tbl.DeleteRange([]byte("k150"), []byte("k160")); err != nil {
		t.Fatal(err)
	}

	gate, waits := make(chan struct{}), make(chan struct{})
	b.mu.Lock()
	b.scanGate, b.scanWaits = gate, waits
	b.mu.Unlock()
	done := make(chan error)
	go func() { done <- s.Commit(context.Background(), 2) }()
	<-waits // the commit froze the overlay and scans its span
	put("k050", "3")
	put("new", "3")

	// The readers run while the commit turns the frozen overlay into
	// mutations and writes them, with no lock between them.
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			for i := range 1000 {
				k := fmt.Sprintf("k%03d", (i*7+r)%200)
				if _, _, err := tbl.Get([]byte(k)); err != nil {
					t.Error(err)
				}
				if i%50 == 0 {
					if err := tbl.Scan([]byte("k1"), func(k, v []byte) error { return nil }); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	b.mu.Lock()
	b.failCommit = errors.New("disk full")
	b.mu.Unlock()
	if err := s.Commit(context.Background(), 3); err == nil {
		t.Fatal("commit 3 did not fail")
	}
	if s.live.pace != nil {
		t.Fatal("the failed commit's overlay, live again, still paces its sorts")
	}
	put("k000", "4") // over the failed commit's writes
	b.mu.Lock()
	b.failCommit = nil
	b.mu.Unlock()
	if err := s.Commit(context.Background(), 4); err != nil {
		t.Fatal(err)
	}

	var want []string
	for i := range 200 {
		k := fmt.Sprintf("k%03d", i)
		switch {
		case i == 0:
			want = append(want, k+"=4")
		case i == 50:
			want = append(want, k+"=3")
		case i < 100:
			want = append(want, k+"=2")
		case i >= 150 && i < 160:
		default:
			want = append(want, k+"=1")
		}
	}
	want = append(want, "new=3")
	expect(t, "after the commits", dumpTable(t, tbl), strings.Join(want, " "))
	if len(b.data) != len(want) {
		t.Errorf("backend holds %d keys, want %d", len(b.data), len(want))
	}
}

// collect returns the mutations each produces, copied.
func collect(each Mutations) []Mutation {
	var out []Mutation
	each(func(m Mutation) error {
		out = append(out, Mutation{Key: bytes.Clone(m.Key), Val: bytes.Clone(m.Val), Delete: m.Delete})
		return nil
	})
	return out
}
