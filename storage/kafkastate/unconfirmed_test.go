package kafkastate

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// loseEndTxn makes the cluster answer the EndTxn requests of the store's
// client by closing the connection, after canceling cancel (the
// committing context, so that the client gives up rather than retrying),
// until the function it returns is called. If apply is set, the first
// request is carried out through another client before, as if the
// broker had committed and the answer were lost on the way.
func loseEndTxn(t *testing.T, c *cluster, cancel context.CancelFunc, apply bool) (stop func()) {
	t.Helper()
	side, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(side.Close)
	var lose, onSide atomic.Bool
	lose.Store(true)
	c.ControlKey(int16(kmsg.EndTxn), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !lose.Load() || onSide.Load() {
			return nil, nil, false // as usual
		}
		if apply && !onSide.Swap(true) {
			req := *kr.(*kmsg.EndTxnRequest)
			c.SleepControl(func() { // the cluster serves other connections meanwhile
				resp, err := req.RequestWith(context.Background(), side)
				if err == nil {
					err = kerr.ErrorForCode(resp.ErrorCode)
				}
				if err != nil {
					t.Errorf("committing the transaction on the side: %v", err)
				}
			})
			apply = false
			onSide.Store(false)
		}
		cancel()
		return nil, errors.New("the answer is lost"), true
	})
	return func() { lose.Store(false) }
}

// markers returns the epochs of the epoch markers committed to c's
// partition part, in order.
func markers(t *testing.T, c *cluster, part int32) []uint64 {
	t.Helper()
	var out []uint64
	for _, r := range committed(t, c, part) {
		if string(r.Key) == string(epochMarkerKey) {
			out = append(out, binary.BigEndian.Uint64(r.Value))
		}
	}
	return out
}

// TestUnconfirmedCommitLanded loses the answer to a commit's EndTxn after
// the broker committed it. The commit fails (its context was canceled),
// and Recover, resolving it, finds that it committed.
func TestUnconfirmedCommitLanded(t *testing.T) {
	c := newCluster(t, 1)
	s := c.open(t, 0)
	tbl := tableOf(t, s, "t")
	must(t, tbl.Put([]byte("a"), []byte("1")))
	must(t, s.Commit(context.Background(), 1))
	must(t, tbl.Put([]byte("a"), []byte("2")))
	must(t, tbl.Put([]byte("b"), []byte("2")))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := loseEndTxn(t, c, cancel, true)
	if err := s.Commit(ctx, 2); err == nil {
		t.Fatal("the commit whose answer was lost succeeded")
	}
	stop()
	epoch, err := s.Recover(context.Background())
	must(t, err)
	if epoch != 2 {
		t.Fatalf("Recover = %d, want 2 (the commit landed)", epoch)
	}
	expect(t, "after the landed commit", tbl, "a=2", "b=2")
	if got := markers(t, c, 0); !slices.Equal(got, []uint64{1, 2}) {
		t.Fatalf("the partition has the markers of epochs %v, want [1 2]", got)
	}
	must(t, tbl.Put([]byte("c"), []byte("3")))
	must(t, s.Commit(context.Background(), 3))
	s = reopened(t, c, s)
	expect(t, "reopened", tableOf(t, s, "t"), "a=2", "b=2", "c=3")
}

// TestUnconfirmedCommitLost loses a commit's EndTxn request before the
// broker acted on it. The commit fails; its writes stay buffered, and the
// next commit, resolving the first (aborting its transaction), writes
// them.
func TestUnconfirmedCommitLost(t *testing.T) {
	c := newCluster(t, 1)
	s := c.open(t, 0)
	tbl := tableOf(t, s, "t")
	must(t, tbl.Put([]byte("a"), []byte("1")))
	must(t, s.Commit(context.Background(), 1))
	must(t, tbl.Put([]byte("a"), []byte("2")))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := loseEndTxn(t, c, cancel, false)
	if err := s.Commit(ctx, 2); err == nil {
		t.Fatal("the commit whose request was lost succeeded")
	}
	stop()
	expect(t, "after the lost commit", tbl, "a=2")
	must(t, tbl.Put([]byte("b"), []byte("3")))
	must(t, s.Commit(context.Background(), 3))
	if got := markers(t, c, 0); !slices.Equal(got, []uint64{1, 3}) {
		t.Fatalf("the partition has the markers of epochs %v, want [1 3]", got)
	}
	s = reopened(t, c, s)
	epoch, err := s.Recover(context.Background())
	must(t, err)
	if epoch != 3 {
		t.Fatalf("reopened at epoch %d, want 3", epoch)
	}
	expect(t, "reopened", tableOf(t, s, "t"), "a=2", "b=3")
}

// TestSilentAbort has the broker abort a transaction the client asked to
// commit, and answer as if it had committed, as franz-go itself does when
// it takes a transaction for empty: the store reads the epoch marker back,
// finds it aborted, and fails the commit; its writes stay buffered, and
// the next commit writes them.
func TestSilentAbort(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 1)
	s := c.open(t, 0)
	tbl := tableOf(t, s, "t")
	must(t, tbl.Put([]byte("a"), []byte("1")))
	must(t, s.Commit(ctx, 1))
	must(t, tbl.Put([]byte("a"), []byte("2")))

	c.ControlKey(int16(kmsg.EndTxn), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		// This request only: the cluster goes on with it, now an abort.
		kr.(*kmsg.EndTxnRequest).Commit = false
		c.DropControl()
		return nil, nil, false
	})
	if err := s.Commit(ctx, 2); !errors.Is(err, errNotCommitted) {
		t.Fatalf("the commit the broker aborted = %v, want errNotCommitted", err)
	}
	expect(t, "after the aborted commit", tbl, "a=2")
	must(t, s.Commit(ctx, 3))
	if got := markers(t, c, 0); !slices.Equal(got, []uint64{1, 3}) {
		t.Fatalf("the partition has the markers of epochs %v, want [1 3]", got)
	}
	s = reopened(t, c, s)
	expect(t, "reopened", tableOf(t, s, "t"), "a=2")
}
