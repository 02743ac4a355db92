package kafkastate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/eddysql/eddy/storage"
)

// TestEmptyPartition opens a store on a partition nothing was written to.
func TestEmptyPartition(t *testing.T) {
	s := newCluster(t, 1).open(t, 0)
	epoch, err := s.Recover(context.Background())
	must(t, err)
	size, err := s.Bytes()
	must(t, err)
	if epoch != 0 || size != 0 {
		t.Fatalf("an empty partition's store is at epoch %d with %d bytes", epoch, size)
	}
	expect(t, "an empty store", tableOf(t, s, "t"))
}

// TestReopen checks that a reopened store sees exactly the last committed
// epoch and data, and none of the writes made after it.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	s := c.open(t, 0)
	tbl := tableOf(t, s, "t")
	must(t, tbl.Put([]byte("a"), []byte("1")))
	must(t, tbl.Put([]byte("b"), []byte("1")))
	must(t, tbl.Put([]byte("c"), []byte("1")))
	must(t, s.Commit(ctx, 3))
	must(t, tbl.Put([]byte("a"), []byte("2")))
	must(t, tbl.Delete([]byte("b")))
	must(t, tbl.DeleteRange([]byte("c"), nil))
	must(t, tbl.Put([]byte("d"), []byte("2")))
	must(t, s.Commit(ctx, 7))
	// Uncommitted: gone after the reopen.
	must(t, tbl.Put([]byte("a"), []byte("3")))
	must(t, tbl.Put([]byte("e"), []byte("3")))
	must(t, tableOf(t, s, "u").Put([]byte("x"), []byte("3")))

	s = reopened(t, c, s)
	epoch, err := s.Recover(ctx)
	must(t, err)
	if epoch != 7 {
		t.Fatalf("reopened at epoch %d, want 7", epoch)
	}
	expect(t, "after reopening", tableOf(t, s, "t"), "a=2", "d=2")
	expect(t, "an uncommitted table", tableOf(t, s, "u"))
	if err := s.Commit(ctx, 7); !errors.Is(err, storage.ErrStaleEpoch) {
		t.Fatalf("committing epoch 7 again = %v, want ErrStaleEpoch", err)
	}
	if _, err := s.Rollback(ctx); !errors.Is(err, storage.ErrNoPrevious) {
		t.Fatalf("Rollback = %v, want ErrNoPrevious", err)
	}
	must(t, s.Commit(ctx, 8)) // an empty commit moves the epoch
	s = reopened(t, c, s)
	if epoch, err := s.Recover(ctx); err != nil || epoch != 8 {
		t.Fatalf("after an empty commit, reopened at epoch %d (%v), want 8", epoch, err)
	}
}

// TestPartitionsIndependent checks that two partitions of one topic are
// two stores, even with the same table and keys.
func TestPartitionsIndependent(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 2)
	s0, s1 := c.open(t, 0), c.open(t, 1)
	t0, t1 := tableOf(t, s0, "t"), tableOf(t, s1, "t")
	must(t, t0.Put([]byte("k"), []byte("zero")))
	must(t, t0.Put([]byte("only0"), []byte("0")))
	must(t, t1.Put([]byte("k"), []byte("one")))
	must(t, s0.Commit(ctx, 5))
	must(t, s1.Commit(ctx, 2))
	must(t, t1.Delete([]byte("k")))
	must(t, s1.Commit(ctx, 3))

	s0, s1 = reopened(t, c, s0), reopened(t, c, s1)
	for _, x := range []struct {
		s     *Store
		epoch uint64
		want  []string
	}{{s0, 5, []string{"k=zero", "only0=0"}}, {s1, 3, nil}} {
		epoch, err := x.s.Recover(ctx)
		must(t, err)
		if epoch != x.epoch {
			t.Fatalf("partition %d at epoch %d, want %d", x.s.b.p.part, epoch, x.epoch)
		}
		expect(t, fmt.Sprintf("partition %d", x.s.b.p.part), tableOf(t, x.s, "t"), x.want...)
	}
}

// TestLargeValue round-trips a 16 MiB value (in chunks), then shrinks it
// to a small one, and checks each after reopening and after compaction.
func TestLargeValue(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	s := c.open(t, 0)
	big := make([]byte, 16<<20)
	for i := range big {
		big[i] = byte(i * 7 / 5)
	}
	tbl := tableOf(t, s, "snapshots")
	must(t, tbl.Put([]byte("op"), big))
	must(t, tbl.Put([]byte("small"), []byte("s")))
	must(t, s.Commit(ctx, 1))

	getBig := func(what string, want []byte) {
		t.Helper()
		v, ok, err := tableOf(t, s, "snapshots").Get([]byte("op"))
		must(t, err)
		if !ok || !bytes.Equal(v, want) {
			t.Fatalf("%s: a value of %d bytes (%v), want %d bytes", what, len(v), ok, len(want))
		}
	}
	getBig("after the commit", big)
	s = reopened(t, c, s)
	getBig("after reopening", big)

	must(t, tableOf(t, s, "snapshots").Put([]byte("op"), []byte("tiny")))
	must(t, s.Commit(ctx, 2))
	s = reopened(t, c, s)
	getBig("after shrinking and reopening", []byte("tiny"))
	c.Compact()
	s = reopened(t, c, s)
	getBig("after compacting", []byte("tiny"))

	// Grow it again, then delete it.
	must(t, tableOf(t, s, "snapshots").Put([]byte("op"), big[:3*chunkSize]))
	must(t, s.Commit(ctx, 3))
	s = reopened(t, c, s)
	getBig("after growing it again", big[:3*chunkSize])
	must(t, tableOf(t, s, "snapshots").Delete([]byte("op")))
	must(t, s.Commit(ctx, 4))
	c.Compact()
	s = reopened(t, c, s)
	expect(t, "after deleting it", tableOf(t, s, "snapshots"), "small=s")
}

// TestKeyTooLarge checks that a key too long for a record is refused when
// it is written.
func TestKeyTooLarge(t *testing.T) {
	s := newCluster(t, 1).open(t, 0)
	tbl := tableOf(t, s, "t")
	long := bytes.Repeat([]byte("k"), maxKeyLen)
	if err := tbl.Put(long, []byte("v")); !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("Put of a %d-byte key = %v, want ErrTooLarge", len(long), err)
	}
	if err := tbl.Delete(long); !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("Delete of a %d-byte key = %v, want ErrTooLarge", len(long), err)
	}
	must(t, tbl.Put(long[:maxKeyLen-5-len(storage.AppendString(nil, "t"))], []byte("v")))
	must(t, s.Commit(context.Background(), 1))
}

// TestClosed checks the store after Close: it is idempotent, and every
// operation fails with ErrClosed.
func TestClosed(t *testing.T) {
	ctx := context.Background()
	s := newCluster(t, 1).open(t, 0)
	tbl := tableOf(t, s, "t")
	must(t, tbl.Put([]byte("a"), []byte("1")))
	must(t, s.Close())
	must(t, s.Close())
	for what, err := range map[string]error{
		"Put":    tbl.Put([]byte("a"), []byte("1")),
		"Scan":   tbl.Scan(nil, func(k, v []byte) error { return nil }),
		"Commit": s.Commit(ctx, 1),
	} {
		if !errors.Is(err, storage.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", what, err)
		}
	}
	if _, err := s.Recover(ctx); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Recover after Close = %v, want ErrClosed", err)
	}
	if _, err := s.Table("t", storage.TableOptions{}); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Table after Close = %v, want ErrClosed", err)
	}
}

// TestConcurrent writes, reads and scans while commits run, for the race
// detector, and checks the end state after reopening.
func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	s := c.open(t, 0)
	const writers, keys = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		tbl := tableOf(t, s, fmt.Sprint("t", w))
		wg.Go(func() {
			for i := range keys {
				k := fmt.Appendf(nil, "k%03d", i)
				if err := tbl.Put(k, k); err != nil {
					t.Error(err)
					return
				}
				if _, _, err := tbl.Get(k); err != nil {
					t.Error(err)
					return
				}
				if i%25 == 0 {
					err := tbl.Scan([]byte("k"), func(k, v []byte) error {
						if !bytes.Equal(k, v) {
							return fmt.Errorf("key %q has value %q", k, v)
						}
						return nil
					})
					if err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	var epoch uint64
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		epoch++
		must(t, s.Commit(ctx, epoch))
	}
	s = reopened(t, c, s)
	for w := range writers {
		got := dump(t, tableOf(t, s, fmt.Sprint("t", w)), "")
		if len(got) != keys || !strings.HasPrefix(got[keys-1], "k199=") {
			t.Fatalf("table t%d holds %d keys after reopening, want %d", w, len(got), keys)
		}
	}
}

// TestLeaders runs stores on a cluster of three brokers, whose leaders
// move between reopens, with fetches and offset listings that fail as
// they do while leadership moves.
func TestLeaders(t *testing.T) {
	ctx := context.Background()
	c := newClusterOf(t, 3, 3)
	stores := make([]*Store, 3)
	for p := range stores {
		stores[p] = c.open(t, int32(p))
		must(t, tableOf(t, stores[p], "t").Put([]byte("p"), fmt.Append(nil, p)))
		must(t, stores[p].Commit(ctx, uint64(p+1)))
		must(t, stores[p].Close())
	}
	c.ShufflePartitionLeaders()
	faults := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Err: kerr.NotLeaderForPartition, Count: 2},
		kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Err: kerr.LeaderNotAvailable, Count: 2})
	for p := range stores {
		s := c.open(t, int32(p))
		epoch, err := s.Recover(ctx)
		must(t, err)
		if epoch != uint64(p+1) {
			t.Fatalf("partition %d at epoch %d, want %d", p, epoch, p+1)
		}
		expect(t, fmt.Sprint("partition ", p), tableOf(t, s, "t"), fmt.Sprint("p=", p))
	}
	if n := faults.Hits(); n != 4 {
		t.Fatalf("%d requests failed, want 4", n)
	}
}
