package storagetest

import (
	"context"
	"errors"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// runRollback checks Rollback: it restores the checkpoint before the
// last, whole, discards uncommitted writes, refuses a second rollback in a
// row and one with no earlier checkpoint, lets commits go on from there,
// and survives a restart.
func runRollback(t *testing.T, h Harness) {
	ctx := context.Background()
	db := open(t, h)
	s, tbl := seeded(t, db, "old", "a", "b")
	if _, err := s.Rollback(ctx); !errors.Is(err, storage.ErrNoPrevious) {
		t.Fatalf("Rollback after one commit = %v, want ErrNoPrevious", err)
	}
	must(t, tbl.Put([]byte("a"), []byte("new")))
	must(t, tbl.Delete([]byte("b")))
	must(t, tbl.Put([]byte("c"), []byte("new")))
	must(t, s.Commit(ctx, 2))
	must(t, tbl.Put([]byte("d"), []byte("uncommitted")))
	epoch, err := s.Rollback(ctx)
	must(t, err)
	if epoch != 1 {
		t.Fatalf("Rollback = epoch %d, want 1", epoch)
	}
	expectDump(t, tbl, "", "a=old", "b=old")
	if _, err := s.Rollback(ctx); !errors.Is(err, storage.ErrNoPrevious) {
		t.Fatalf("a second Rollback = %v, want ErrNoPrevious", err)
	}
	if got, err := s.Recover(ctx); err != nil || got != 1 {
		t.Fatalf("Recover after Rollback = %d, %v; want 1", got, err)
	}
	must(t, tbl.Put([]byte("e"), []byte("later")))
	must(t, s.Commit(ctx, 2))
	expectDump(t, tbl, "", "a=old", "b=old", "e=later")
	must(t, s.Commit(ctx, 3))
	epoch, err = s.Rollback(ctx)
	must(t, err)
	if epoch != 2 {
		t.Fatalf("Rollback = epoch %d, want 2", epoch)
	}
	expectDump(t, tbl, "", "a=old", "b=old", "e=later")
	if h.Reopen == nil {
		return
	}
	must(t, s.Close())
	db = reopen(t, h, db)
	s = state(t, db, "job")
	defer s.Close()
	if got, err := s.Recover(ctx); err != nil || got != 2 {
		t.Fatalf("Recover after a restart = %d, %v; want 2", got, err)
	}
	expectDump(t, table(t, s, "t"), "", "a=old", "b=old", "e=later")
}
