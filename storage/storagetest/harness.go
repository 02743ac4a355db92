package storagetest

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/storage"
)

// Harness adapts an implementation to the suite.
type Harness struct {
	// Open returns a new, empty DB. The suite closes it (Close is
	// idempotent, so a test may close it too).
	Open func(t testing.TB) storage.DB
	// Reopen closes db and returns a DB over its durable contents, as a
	// restarted process would see them. Leave it nil for a DB that keeps
	// nothing across Close; the tests that need it are then skipped.
	Reopen func(t testing.TB, db storage.DB) storage.DB
	// Corrupt damages the stored bytes of entry seq of stream in db.
	Corrupt func(t testing.TB, db storage.DB, stream, seq uint64)
}

// Run runs the whole suite against h.
func Run(t *testing.T, h Harness) {
	t.Run("KV", func(t *testing.T) { runKV(t, h) })
	t.Run("Log", func(t *testing.T) { runLog(t, h) })
	t.Run("LogConcurrent", func(t *testing.T) { runLogConcurrent(t, h) })
	t.Run("DropWhileWriting", func(t *testing.T) { runDropWhileWriting(t, h) })
	t.Run("State", func(t *testing.T) { runState(t, h) })
	t.Run("DropState", func(t *testing.T) { runDropState(t, h) })
	t.Run("StateModel", func(t *testing.T) { runStateModel(t, h) })
	t.Run("Rollback", func(t *testing.T) { runRollback(t, h) })
	t.Run("Closed", func(t *testing.T) { runClosed(t, h) })
}

// open opens a DB that is closed when the test ends.
func open(t *testing.T, h Harness) storage.DB {
	t.Helper()
	db := h.Open(t)
	t.Cleanup(func() { db.Close() })
	return db
}

// reopen restarts db, closing the new DB when the test ends.
func reopen(t *testing.T, h Harness, db storage.DB) storage.DB {
	t.Helper()
	if h.Reopen == nil {
		t.Skip("the DB keeps nothing across Close")
	}
	db = h.Reopen(t, db)
	t.Cleanup(func() { db.Close() })
	return db
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// runClosed checks that every operation on a closed DB fails with
// ErrClosed rather than panicking or hanging.
func runClosed(t *testing.T, h Harness) {
	ctx := context.Background()
	db := h.Open(t)
	s := state(t, db, "job")
	tbl := table(t, s, "t")
	must(t, db.Close())
	must(t, db.Close())
	b := EventBatch(memory.DefaultAllocator, 0, 1)
	defer b.Release()
	_, _, getErr := db.KV().Get([]byte("k"))
	_, appendErr := db.Log().Append(1, b)
	_, endErr := db.Log().End(1)
	_, readErr := db.Log().Read(ctx, 1, 0, 1, EventSchema, memory.DefaultAllocator, nil)
	_, stateErr := db.State("other")
	_, _, tblGetErr := tbl.Get([]byte("k"))
	for name, err := range map[string]error{
		"KV.Get":       getErr,
		"KV.Put":       db.KV().Put([]byte("k"), nil),
		"Log.Append":   appendErr,
		"Log.End":      endErr,
		"Log.Read":     readErr,
		"Log.Wait":     db.Log().Wait(ctx, 1, 0),
		"Log.Drop":     db.Log().Drop(1),
		"State":        stateErr,
		"DropState":    db.DropState("other"),
		"Table.Get":    tblGetErr,
		"Table.Put":    tbl.Put([]byte("k"), nil),
		"State.Commit": s.Commit(ctx, 1),
	} {
		if !errors.Is(err, storage.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	must(t, s.Close())
}
