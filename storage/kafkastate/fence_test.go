package kafkastate

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/eddysql/eddy/storage"
)

// TestFenced opens a store, then a second store on the same partition
// with the same transactional id: the first one's next commit fails with
// ErrFenced, and the second sees its last committed state only.
func TestFenced(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	a := c.open(t, 0)
	ta := tableOf(t, a, "t")
	must(t, ta.Put([]byte("k"), []byte("committed")))
	must(t, a.Commit(ctx, 1))
	must(t, ta.Put([]byte("k"), []byte("uncommitted")))
	must(t, ta.Put([]byte("more"), []byte("uncommitted")))

	b := c.open(t, 0) // a's process still runs: a is now a zombie
	if err := a.Commit(ctx, 2); !errors.Is(err, ErrFenced) {
		t.Fatalf("the fenced store's Commit = %v, want ErrFenced", err)
	}
	// Unusable afterwards.
	if err := a.Commit(ctx, 3); !errors.Is(err, ErrFenced) {
		t.Fatalf("the fenced store's second Commit = %v, want ErrFenced", err)
	}
	if err := ta.Put([]byte("k"), []byte("x")); !errors.Is(err, ErrFenced) {
		t.Fatalf("the fenced store's Put = %v, want ErrFenced", err)
	}
	if _, err := a.Recover(ctx); !errors.Is(err, ErrFenced) {
		t.Fatalf("the fenced store's Recover = %v, want ErrFenced", err)
	}
	if _, err := a.Table("t", storage.TableOptions{}); !errors.Is(err, ErrFenced) {
		t.Fatalf("the fenced store's Table = %v, want ErrFenced", err)
	}
	must(t, a.Close())

	epoch, err := b.Recover(ctx)
	must(t, err)
	if epoch != 1 {
		t.Fatalf("the new owner is at epoch %d, want 1", epoch)
	}
	expect(t, "the new owner", tableOf(t, b, "t"), "k=committed")
	must(t, tableOf(t, b, "t").Put([]byte("k"), []byte("b")))
	must(t, b.Commit(ctx, 2))
	b = reopened(t, c, b)
	expect(t, "the new owner, reopened", tableOf(t, b, "t"), "k=b")
}

// zombie starts a transaction with the partition's transactional id on a
// raw client, as a crashed owner would have, and produces into it a
// record that would set key "zombie" of table "t" and an epoch marker of
// epoch 99, so that they would show if the transaction were not aborted.
// It returns the client with the transaction open.
func zombie(t *testing.T, c *cluster, part int32) *kgo.Client {
	t.Helper()
	return openTxn(t, c, part, c.config(part).TransactionalID, "zombie", 99)
}

// openTxn starts a transaction of transactional id txnID on a raw
// client and produces into it the records of a commit of epoch that sets
// key of table "t" to "z". It returns the client with the transaction
// open.
func openTxn(t *testing.T, c *cluster, part int32, txnID, key string, epoch byte) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...), kgo.TransactionalID(txnID),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	must(t, cl.BeginTransaction())
	full := append(storage.AppendString(nil, "t"), key...)
	recs := []*kgo.Record{
		{Topic: c.topic, Partition: part, Key: valueKey(full), Value: []byte("z")},
		{Topic: c.topic, Partition: part, Key: epochMarkerKey, Value: []byte{0, 0, 0, 0, 0, 0, 0, epoch}},
	}
	must(t, cl.ProduceSync(context.Background(), recs...).FirstErr())
	return cl
}

// TestOpenWaitsForTransactions checks that Open does not stop reading at
// the last stable offset while a transaction is open before the high
// watermark (here another producer's, which the fence does not end): it
// waits until the transaction ends, and then reads what it committed.
func TestOpenWaitsForTransactions(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	other := openTxn(t, c, 0, "another-producer", "other", 7)
	listings := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Observe: true, Count: -1})
	opened := make(chan *Store, 1)
	go func() {
		s, err := Open(ctx, c.config(0))
		if err != nil {
			t.Error(err)
		}
		opened <- s
	}()
	// The start, the high watermark, then the stable offset twice: Open
	// is waiting.
	waiting := make(chan error, 1)
	go func() { waiting <- listings.Wait(ctx, 4) }()
	var s *Store
	select {
	case s = <-opened:
		if s != nil {
			s.Close()
		}
		t.Fatal("Open returned while a transaction was open before the high watermark")
	case err := <-waiting:
		must(t, err)
	}
	must(t, other.EndTransaction(ctx, kgo.TryCommit))
	s = <-opened
	if s == nil {
		return
	}
	defer s.Close()
	epoch, err := s.Recover(ctx)
	must(t, err)
	if epoch != 7 {
		t.Fatalf("opened at epoch %d, want 7", epoch)
	}
	expect(t, "after the other transaction", tableOf(t, s, "t"), "other=z")
}

// TestCrashedOwner checks that a transaction an owner left open is not
// visible after Open, whether the owner's client is gone or still runs.
func TestCrashedOwner(t *testing.T) {
	ctx := context.Background()
	for _, gone := range []bool{true, false} {
		name := map[bool]string{true: "ClientClosed", false: "ClientRunning"}[gone]
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, 1)
			s := c.open(t, 0)
			must(t, tableOf(t, s, "t").Put([]byte("k"), []byte("v")))
			must(t, s.Commit(ctx, 4))
			must(t, s.Close())

			z := zombie(t, c, 0)
			if gone {
				z.Close() // without ending the transaction
			}
			s = c.open(t, 0)
			epoch, err := s.Recover(ctx)
			must(t, err)
			if epoch != 4 {
				t.Fatalf("opened at epoch %d, want 4", epoch)
			}
			expect(t, "after the crash", tableOf(t, s, "t"), "k=v")
			if !gone {
				if err := z.EndTransaction(ctx, kgo.TryCommit); err == nil {
					t.Fatal("the fenced zombie committed its transaction")
				}
			}
			must(t, tableOf(t, s, "t").Put([]byte("k2"), []byte("v2")))
			must(t, s.Commit(ctx, 5))
			s = reopened(t, c, s)
			expect(t, "after the next commit", tableOf(t, s, "t"), "k=v", "k2=v2")
		})
	}
}
