package storagetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// runDropState checks DB.DropState: it deletes every table and epoch of
// one job, and nothing of any other.
func runDropState(t *testing.T, h Harness) {
	ctx := context.Background()

	// fill commits epochs 1 to 3 of job, writing to tables t1 and t2, and
	// leaves it closed.
	fill := func(t *testing.T, db storage.DB, job string) {
		t.Helper()
		s := state(t, db, job)
		t1, t2 := table(t, s, "t1"), table(t, s, "t2")
		for e := uint64(1); e <= 3; e++ {
			must(t, t1.Put(fmt.Appendf(nil, "k%d", e), []byte(job)))
			must(t, t2.Put(fmt.Appendf(nil, "k%d", e), []byte(job)))
			must(t, s.Commit(ctx, e))
		}
		must(t, t1.Delete([]byte("k1")))
		must(t, s.Commit(ctx, 4))
		must(t, s.Close())
	}
	// expectJob checks that job's store is at epoch and its tables hold
	// t1 and t2 (the lines of expectDump); an emptied store takes epoch 1
	// again.
	expectJob := func(t *testing.T, db storage.DB, job string, epoch uint64, t1, t2 []string) {
		t.Helper()
		s := state(t, db, job)
		defer s.Close()
		if e, err := s.Recover(ctx); e != epoch || err != nil {
			t.Fatalf("Recover of job %q = %d, %v; want %d", job, e, err, epoch)
		}
		expectDump(t, table(t, s, "t1"), "", t1...)
		expectDump(t, table(t, s, "t2"), "", t2...)
		if epoch == 0 {
			must(t, s.Commit(ctx, 1))
		}
	}
	// expectEmpty checks that job's store is empty and at epoch 0.
	expectEmpty := func(t *testing.T, db storage.DB, job string) {
		t.Helper()
		expectJob(t, db, job, 0, nil, nil)
	}
	// expectFilled checks what fill left of job.
	expectFilled := func(t *testing.T, db storage.DB, job string) {
		t.Helper()
		expectJob(t, db, job, 4, []string{"k2=" + job, "k3=" + job}, []string{"k1=" + job, "k2=" + job, "k3=" + job})
	}

	t.Run("DropsEverything", func(t *testing.T) {
		db := open(t, h)
		fill(t, db, "job")
		must(t, db.DropState("job"))
		expectEmpty(t, db, "job")
	})

	t.Run("OpenStore", func(t *testing.T) {
		db := open(t, h)
		fill(t, db, "job")
		s := state(t, db, "job")
		tbl := table(t, s, "t1")
		if err := db.DropState("job"); !errors.Is(err, storage.ErrAlreadyOpen) {
			t.Fatalf("DropState of an open store = %v, want ErrAlreadyOpen", err)
		}
		// The failed drop changed nothing, and the store still works.
		expectDump(t, tbl, "", "k2=job", "k3=job")
		must(t, tbl.Put([]byte("k4"), []byte("job")))
		must(t, s.Commit(ctx, 5))
		must(t, s.Close())
		must(t, db.DropState("job"))
		expectEmpty(t, db, "job")
	})

	t.Run("OtherJobs", func(t *testing.T) {
		db := open(t, h)
		// Names that are prefixes of each other, and the empty name.
		for _, job := range []string{"a", "ab", "a\x00", ""} {
			fill(t, db, job)
		}
		must(t, db.DropState("a"))
		expectEmpty(t, db, "a")
		for _, job := range []string{"ab", "a\x00", ""} {
			expectFilled(t, db, job)
		}
		must(t, db.DropState(""))
		expectEmpty(t, db, "")
		expectFilled(t, db, "ab")
		expectFilled(t, db, "a\x00")
	})

	t.Run("NoState", func(t *testing.T) {
		db := open(t, h)
		must(t, db.DropState("never"))
		s := state(t, db, "opened") // opened and closed, nothing committed
		must(t, s.Close())
		must(t, db.DropState("opened"))
		must(t, db.DropState("opened")) // twice
		expectEmpty(t, db, "never")
		expectEmpty(t, db, "opened")
	})

	t.Run("Persistence", func(t *testing.T) {
		db := open(t, h)
		fill(t, db, "job")
		fill(t, db, "kept")
		must(t, db.DropState("job"))
		db = reopen(t, h, db)
		expectEmpty(t, db, "job")
		expectFilled(t, db, "kept")
	})

	t.Run("DropThenReuse", func(t *testing.T) {
		db := open(t, h)
		fill(t, db, "job")
		must(t, db.DropState("job"))
		fill(t, db, "job") // the same epochs and keys, from scratch
		expectFilled(t, db, "job")
	})
}
