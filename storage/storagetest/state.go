package storagetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/eddysql/eddy/internal/kvlog"
	"github.com/eddysql/eddy/storage"
)

// dump returns a table's contents under prefix as "k=v" strings in scan
// order.
func dump(t testing.TB, tbl storage.StateTable, prefix string) []string {
	t.Helper()
	var out []string
	must(t, tbl.Scan([]byte(prefix), func(k, v []byte) error {
		out = append(out, string(k)+"="+string(v))
		return nil
	}))
	return out
}

func expectDump(t testing.TB, tbl storage.StateTable, prefix string, want ...string) {
	t.Helper()
	if got := dump(t, tbl, prefix); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Scan(%q) = %q, want %q", prefix, got, want)
	}
}

func table(t testing.TB, s storage.StateStore, name string) storage.StateTable {
	t.Helper()
	tbl, err := s.Table(name, storage.TableOptions{})
	must(t, err)
	return tbl
}

func state(t testing.TB, db storage.DB, job string) storage.StateStore {
	t.Helper()
	s, err := db.State(job)
	must(t, err)
	return s
}

// seeded returns job's store in db and its table t, whose keys hold val as
// committed at epoch 1.
func seeded(t testing.TB, db storage.DB, val string, keys ...string) (storage.StateStore, storage.StateTable) {
	t.Helper()
	s := state(t, db, "job")
	tbl := table(t, s, "t")
	for _, k := range keys {
		must(t, tbl.Put([]byte(k), []byte(val)))
	}
	must(t, s.Commit(context.Background(), 1))
	return s, tbl
}

func runState(t *testing.T, h Harness) {
	ctx := context.Background()
	t.Run("ReadsSeeUncommittedWrites", func(t *testing.T) {
		s := state(t, open(t, h), "job")
		tbl := table(t, s, "t")
		must(t, tbl.Put([]byte("b"), []byte("1")))
		must(t, tbl.Put([]byte("a"), []byte("2")))
		must(t, s.Commit(ctx, 1))
		must(t, tbl.Put([]byte("c"), []byte("3")))  // uncommitted insert
		must(t, tbl.Put([]byte("a"), []byte("22"))) // uncommitted update
		must(t, tbl.Delete([]byte("b")))            // uncommitted delete
		expectDump(t, tbl, "", "a=22", "c=3")
		if v, ok, _ := tbl.Get([]byte("b")); ok {
			t.Fatalf("Get of a deleted key = %q", v)
		}
		if v, _, _ := tbl.Get([]byte("a")); string(v) != "22" {
			t.Fatalf("Get(a) = %q", v)
		}
		if epoch, _ := s.Recover(ctx); epoch != 1 {
			t.Fatalf("Recover = %d, want 1", epoch)
		}
		expectDump(t, tbl, "", "a=2", "b=1")
	})

	t.Run("DeleteRange", func(t *testing.T) {
		s, tbl := seeded(t, open(t, h), "old", "a", "b1", "b2", "b3", "c")
		must(t, tbl.Put([]byte("b4"), []byte("new"))) // uncommitted, in range
		must(t, tbl.DeleteRange([]byte("b"), []byte("c")))
		must(t, tbl.Put([]byte("b2"), []byte("again"))) // written after the range
		expectDump(t, tbl, "", "a=old", "b2=again", "c=old")
		must(t, tbl.DeleteRange([]byte("z"), []byte("a"))) // empty range
		must(t, s.Commit(ctx, 2))
		expectDump(t, tbl, "", "a=old", "b2=again", "c=old")
		must(t, tbl.DeleteRange([]byte("b"), nil)) // to the end of the table
		expectDump(t, tbl, "", "a=old")
		must(t, s.Commit(ctx, 3))
		expectDump(t, tbl, "", "a=old")
	})

	t.Run("WriteLog", func(t *testing.T) {
		s, tbl := seeded(t, open(t, h), "old", "a", "b", "c")
		var l kvlog.Log
		l.Append(nil, []byte("b"), []byte("new"), false)
		l.Append(nil, []byte("a"), nil, true)
		l.Append(nil, []byte("d"), []byte("1"), false)
		l.Append(nil, []byte("d"), []byte("2"), false) // the later write wins
		l.Append(nil, []byte("c"), nil, true)
		l.Append(nil, []byte("c"), []byte("back"), false)
		must(t, tbl.WriteLog(&l))
		l.Reset() // the table copied the writes
		l.Append(nil, []byte("x"), []byte("not written"), false)
		expectDump(t, tbl, "", "b=new", "c=back", "d=2")
		must(t, s.Commit(ctx, 2))
		expectDump(t, tbl, "", "b=new", "c=back", "d=2")
		must(t, tbl.WriteLog(&kvlog.Log{})) // nothing to write
		expectDump(t, tbl, "", "b=new", "c=back", "d=2")
	})

	t.Run("ScanRange", func(t *testing.T) {
		_, tbl := seeded(t, open(t, h), "old", "a", "b1", "b2", "c")
		must(t, tbl.Put([]byte("b3"), []byte("new"))) // uncommitted, in range
		must(t, tbl.Delete([]byte("b1")))             // uncommitted deletion
		scanRange := func(lo, hi []byte) []string {
			t.Helper()
			var got []string
			must(t, tbl.ScanRange(lo, hi, func(k, v []byte) error {
				got = append(got, string(k)+"="+string(v))
				return nil
			}))
			return got
		}
		for _, c := range []struct {
			lo, hi []byte
			want   []string
		}{
			{[]byte("b"), []byte("c"), []string{"b2=old", "b3=new"}},
			{[]byte("b2"), []byte("b3"), []string{"b2=old"}}, // hi is exclusive
			{nil, []byte("b"), []string{"a=old"}},
			{[]byte("b3"), nil, []string{"b3=new", "c=old"}}, // to the end of the table
			{[]byte("c"), []byte("a"), nil},                  // empty range
		} {
			if got := scanRange(c.lo, c.hi); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("ScanRange(%q, %q) = %q, want %q", c.lo, c.hi, got, c.want)
			}
		}
	})

	t.Run("TablesAreIsolated", func(t *testing.T) {
		db := open(t, h)
		s := state(t, db, "job")
		// Names where one is a prefix of the other, and keys that would
		// run into the next table if names were not delimited.
		a, ab := table(t, s, "a"), table(t, s, "ab")
		empty := table(t, s, "")
		must(t, a.Put([]byte("b\x00k"), []byte("in a")))
		must(t, ab.Put([]byte("k"), []byte("in ab")))
		must(t, empty.Put([]byte("ab"), []byte("in empty")))
		must(t, a.Put([]byte("\xff\xff"), []byte("last of a")))
		check := func() {
			t.Helper()
			expectDump(t, a, "", "b\x00k=in a", "\xff\xff=last of a")
			n := 0
			must(t, a.ScanRange(nil, nil, func(k, v []byte) error { n++; return nil }))
			if n != 2 {
				t.Fatalf("ScanRange(nil, nil) of table a saw %d keys, want its 2", n)
			}
			expectDump(t, ab, "", "k=in ab")
			expectDump(t, empty, "", "ab=in empty")
		}
		check()
		must(t, a.DeleteRange(nil, nil))
		expectDump(t, ab, "", "k=in ab")
		_, err := s.Recover(ctx)
		must(t, err)
		must(t, a.Put([]byte("b\x00k"), []byte("in a")))
		must(t, ab.Put([]byte("k"), []byte("in ab")))
		must(t, empty.Put([]byte("ab"), []byte("in empty")))
		must(t, a.Put([]byte("\xff\xff"), []byte("last of a")))
		must(t, s.Commit(ctx, 1))
		check()
		if same := table(t, s, "a"); dump(t, same, "")[0] != "b\x00k=in a" {
			t.Fatal("Table with the same name gave another table")
		}
		// Jobs are isolated too.
		other := state(t, db, "jobb")
		expectDump(t, table(t, other, "a"), "")
	})

	t.Run("ScanPrefixAndWrites", func(t *testing.T) {
		_, tbl := seeded(t, open(t, h), "c", "p/1", "p/2", "q/1", "p", "p/\xff")
		must(t, tbl.Put([]byte("p/15"), []byte("u")))
		expectDump(t, tbl, "p/", "p/1=c", "p/15=u", "p/2=c", "p/\xff=c")
		// fn may write to the table; the scan keeps its snapshot.
		must(t, tbl.Scan([]byte("p/"), func(k, v []byte) error {
			return tbl.Put(append([]byte("q/"), k...), v)
		}))
		expectDump(t, tbl, "q/p/", "q/p/1=c", "q/p/15=u", "q/p/2=c", "q/p/\xff=c")
		stop := errors.New("stop")
		if err := tbl.Scan(nil, func(k, v []byte) error { return stop }); err != stop {
			t.Fatalf("Scan with failing fn = %v", err)
		}
	})

	t.Run("Epochs", func(t *testing.T) {
		s := state(t, open(t, h), "job")
		if e, err := s.Recover(ctx); e != 0 || err != nil {
			t.Fatalf("Recover of a new store = %d, %v", e, err)
		}
		must(t, s.Commit(ctx, 5))
		if err := s.Commit(ctx, 5); !errors.Is(err, storage.ErrStaleEpoch) {
			t.Fatalf("Commit of the same epoch = %v", err)
		}
		if err := s.Commit(ctx, 4); !errors.Is(err, storage.ErrStaleEpoch) {
			t.Fatalf("Commit of an older epoch = %v", err)
		}
		must(t, s.Commit(ctx, 7))
		if e, _ := s.Recover(ctx); e != 7 {
			t.Fatalf("Recover = %d, want 7", e)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		tbl := table(t, s, "t")
		must(t, tbl.Put([]byte("k"), []byte("v")))
		if err := s.Commit(cctx, 8); !errors.Is(err, context.Canceled) {
			t.Fatalf("Commit with a canceled context = %v", err)
		}
		must(t, s.Commit(ctx, 8)) // the write was kept for this attempt
		if e, _ := s.Recover(ctx); e != 8 {
			t.Fatalf("Recover = %d, want 8", e)
		}
		expectDump(t, tbl, "", "k=v")
	})

	t.Run("Persistence", func(t *testing.T) {
		db := open(t, h)
		s := state(t, db, "job")
		tbl := table(t, s, "t")
		must(t, tbl.Put([]byte("committed"), []byte("1")))
		must(t, tbl.Put([]byte("overwritten"), []byte("1")))
		must(t, s.Commit(ctx, 3))
		must(t, tbl.Put([]byte("uncommitted"), []byte("2")))
		must(t, tbl.Put([]byte("overwritten"), []byte("2")))
		must(t, tbl.Delete([]byte("committed")))
		db = reopen(t, h, db)
		s = state(t, db, "job")
		if e, _ := s.Recover(ctx); e != 3 {
			t.Fatalf("epoch after reopen = %d, want 3", e)
		}
		expectDump(t, table(t, s, "t"), "", "committed=1", "overwritten=1")
	})

	t.Run("OpenOnce", func(t *testing.T) {
		db := open(t, h)
		s := state(t, db, "job")
		tbl := table(t, s, "t")
		must(t, tbl.Put([]byte("k"), []byte("v")))
		must(t, s.Commit(ctx, 1))
		must(t, tbl.Put([]byte("lost"), []byte("v")))
		if _, err := db.State("job"); !errors.Is(err, storage.ErrAlreadyOpen) {
			t.Fatalf("second State = %v", err)
		}
		must(t, s.Close())
		must(t, s.Close())
		if err := tbl.Put([]byte("k"), nil); !errors.Is(err, storage.ErrClosed) {
			t.Fatalf("Put on a closed store = %v", err)
		}
		s = state(t, db, "job") // a restart of the job
		expectDump(t, table(t, s, "t"), "", "k=v")
	})

	t.Run("WritesDuringCommit", func(t *testing.T) {
		s := state(t, open(t, h), "job")
		tbl := table(t, s, "t")
		var wg sync.WaitGroup
		const writers, keys = 3, 300
		for w := range writers {
			wg.Go(func() {
				for i := range keys {
					k := fmt.Appendf(nil, "w%d/%04d", w, i)
					if err := tbl.Put(k, k); err != nil {
						t.Error(err)
						return
					}
					if v, ok, err := tbl.Get(k); err != nil || !ok || string(v) != string(k) {
						t.Errorf("Get(%s) right after Put = %q, %v, %v", k, v, ok, err)
						return
					}
				}
			})
		}
		wg.Go(func() {
			for e := uint64(1); e <= 20; e++ {
				if err := s.Commit(ctx, e); err != nil {
					t.Error(err)
				}
				n := 0
				if err := tbl.Scan(nil, func(k, v []byte) error { n++; return nil }); err != nil {
					t.Error(err)
				}
			}
		})
		wg.Wait()
		must(t, s.Commit(ctx, 21))
		if n := len(dump(t, tbl, "")); n != writers*keys {
			t.Fatalf("%d keys after the final commit, want %d", n, writers*keys)
		}
	})
}
