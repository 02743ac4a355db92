package dataflow

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// keyCounter is a stateful operator for the checkpoint tests: it counts
// the rows of each BIGINT key (column 0) and emits nothing. Its state is
// snapshotted incrementally, the keys changed since the last snapshot, and
// restored by key group.
type keyCounter struct {
	nopOp
	env    *exec.Env
	counts map[int64]int64
	dirty  map[int64]bool
	hashes []uint64
	// restored records the key groups Restore was asked for.
	restored exec.KeyGroupRange
}

var (
	_ exec.Operator = (*keyCounter)(nil)
	_ exec.Stateful = (*keyCounter)(nil)
)

func (k *keyCounter) Open(_ context.Context, env *exec.Env) error {
	k.env, k.counts, k.dirty = env, map[int64]int64{}, map[int64]bool{}
	return nil
}

func (k *keyCounter) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	col := c.Batch.Column(0).(*array.Int64)
	for i := range col.Len() {
		k.counts[col.Value(i)] += c.Op(i).Weight()
		k.dirty[col.Value(i)] = true
	}
	return nil
}

// group returns the key group of key, as the hash exchange routes it.
func (k *keyCounter) group(key int64) (int, error) {
	b := array.NewInt64Builder(k.env.Alloc)
	defer b.Release()
	b.Append(key)
	a := b.NewArray()
	defer a.Release()
	k.hashes = append(k.hashes[:0], 0)
	if err := exec.HashRows([]arrow.Array{a}, k.hashes); err != nil {
		return 0, err
	}
	return exec.KeyGroup(k.hashes[0]), nil
}

func (k *keyCounter) Snapshot(_ context.Context, _ uint64, w exec.StateWriter) error {
	for key := range k.dirty {
		g, err := k.group(key)
		if err != nil {
			return err
		}
		kb := binary.BigEndian.AppendUint64(nil, uint64(key))
		if k.counts[key] == 0 {
			err = w.Delete(g, kb)
		} else {
			err = w.Put(g, kb, binary.BigEndian.AppendUint64(nil, uint64(k.counts[key])))
		}
		if err != nil {
			return err
		}
	}
	clear(k.dirty)
	return nil
}

func (k *keyCounter) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	k.restored = groups
	return r.Scan(ctx, groups, func(g int, key, value []byte) error {
		if !groups.Contains(g) {
			return fmt.Errorf("restored group %d outside %v", g, groups)
		}
		k.counts[int64(binary.BigEndian.Uint64(key))] = int64(binary.BigEndian.Uint64(value))
		return nil
	})
}

// countingJob runs source → hash(key) → keyCounter at parallelism p →
// a sink, with state in store.
func countingJob(t *testing.T, src *exectest.Source, p int, store storage.StateStore, restore bool) (*Job, []*keyCounter) {
	t.Helper()
	var mu sync.Mutex
	counters := make([]*keyCounter, p)
	count := OpSpec{Name: "count", New: func(inst int) (exec.Operator, error) {
		mu.Lock()
		defer mu.Unlock()
		counters[inst] = &keyCounter{}
		return counters[inst], nil
	}}
	g := exchanged(src, DistHash, p, count, &passthrough{})
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: restore})
	if err != nil {
		t.Fatal(err)
	}
	return job, counters
}

// committed reads the counts a store holds for the counter stage.
func committed(t *testing.T, store storage.StateStore) map[int64]int64 {
	t.Helper()
	return committedIn(t, store, stateTableName(1, 0))
}

// committedIn reads the counts a store holds in the counter's table name.
func committedIn(t *testing.T, store storage.StateStore, name string) map[int64]int64 {
	t.Helper()
	tab, err := store.Table(name, storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]int64{}
	err = stateReader{t: tab}.Scan(context.Background(), exec.KeyGroupRange{Lo: 0, Hi: exec.NumKeyGroups}, func(_ int, k, v []byte) error {
		out[int64(binary.BigEndian.Uint64(k))] = int64(binary.BigEndian.Uint64(v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckpointSnapshotsAndRestores: a checkpoint commits what the
// stateful operators held at the barrier, later checkpoints write what
// changed (a deleted key disappears), and a job restored at another
// parallelism gets every key exactly once, at the instance the exchange
// routes it to.
func TestCheckpointSnapshotsAndRestores(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := mem.New()
	store := jobStore(t, db)
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1\n+I 2\n+I 2\n+I 3")
	job, _ := countingJob(t, src, 2, store, false)
	defer job.Stop()
	// A barrier follows the rows a source has emitted when it is asked
	// for: flush first, so the checkpoint holds every row added.
	checkpointAfterFlush(t, ctx, job, 1, 1)
	if got, want := committed(t, store), map[int64]int64{1: 1, 2: 2, 3: 1}; !maps.Equal(got, want) {
		t.Fatalf("checkpoint 1 holds %v, want %v", got, want)
	}
	src.Add("bigint\n-D 1\n+I 4\n+I 2")
	checkpointAfterFlush(t, ctx, job, 2, 2)
	want := map[int64]int64{2: 3, 3: 1, 4: 1}
	if got := committed(t, store); !maps.Equal(got, want) {
		t.Fatalf("checkpoint 2 holds %v, want %v", got, want)
	}
	job.Stop()
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Restart on a reopened store at parallelism 3.
	db2, err := db.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	store2, err := db2.State("job")
	if err != nil {
		t.Fatal(err)
	}
	defer store2.Close()
	src2 := exectest.NewSource(t, exectest.Alloc(t))
	job2, counters := countingJob(t, src2, 3, store2, true)
	defer job2.Stop()
	if err := job2.Checkpoint(ctx, 3); err != nil { // every task has opened and restored
		t.Fatal(err)
	}
	got := map[int64]int64{}
	for inst, c := range counters {
		if c.restored != exec.KeyGroupsOf(inst, 3) {
			t.Errorf("instance %d restored groups %v, owns %v", inst, c.restored, exec.KeyGroupsOf(inst, 3))
		}
		for key, n := range c.counts {
			if _, dup := got[key]; dup {
				t.Errorf("key %d restored twice", key)
			}
			g, err := c.group(key)
			if err != nil {
				t.Fatal(err)
			}
			if exec.InstanceForKeyGroup(g, 3) != inst {
				t.Errorf("key %d (group %d) restored at instance %d", key, g, inst)
			}
			got[key] = n
		}
	}
	if !maps.Equal(got, want) {
		t.Fatalf("restored %v, want %v", got, want)
	}
	// Three keys of 8 bytes with 8-byte counts, each behind its 2-byte
	// group: what the restore read, and what checkpoint 1 wrote.
	if n := job2.RestoredBytes(); n != 3*18 {
		t.Errorf("restored %d bytes, want %d", n, 3*18)
	}
	if stats := job.Checkpoints(); len(stats) != 2 || stats[0].Bytes != 3*18 || stats[0].Err != nil {
		t.Errorf("checkpoints %+v, want two, the first of %d bytes", stats, 3*18)
	}
}

// TestBarrierAlignmentHoldsBackLaterInput: what a sender sends after its
// barrier waits until every sender's barrier arrived, so the operator sees
// all of the epoch's input, then the barrier, then the next epoch's.
func TestBarrierAlignmentHoldsBackLaterInput(t *testing.T) {
	alloc := exectest.Alloc(t)
	rec := &recorder{}
	j := &Job{progress: make(chan struct{}), state: JobRunning}
	tk := &task{job: j, align: newAligner(2)}
	tk.chain = newChain([]exec.Operator{rec}, []*exec.OperatorMetrics{{}}, discard{})
	data := func(sender int, v string) message {
		return message{sender: sender, chunk: exectest.Chunk(t, alloc, "bigint\n+I "+v)}
	}
	barrier := func(sender int, epoch uint64) message {
		return message{sender: sender, ctrl: exec.Control{Kind: exec.Barrier, Epoch: epoch}}
	}
	ctx := context.Background()
	for _, m := range []message{
		data(0, "1"), barrier(0, 1), data(0, "10"), barrier(0, 2), data(0, "20"),
		data(1, "2"), barrier(1, 1), data(1, "11"), barrier(1, 2), data(1, "21"),
	} {
		if _, err := tk.handle(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"1", "2", "barrier(1)", "10", "11", "barrier(2)", "20", "21"}
	if got := rec.seen(); !slices.Equal(got, want) {
		t.Fatalf("the operator saw %v, want %v", got, want)
	}
	if j.barrier != 2 || len(tk.held) != 0 {
		t.Fatalf("barrier %d reached the sink, %d messages held", j.barrier, len(tk.held))
	}
}

// flushed asks job for flush marker id and waits until it reached the
// sink, failing t on an error.
func flushed(t *testing.T, ctx context.Context, job *Job, id uint64) {
	t.Helper()
	job.RequestFlush(id)
	if err := job.WaitFlushed(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// checkpointAfterFlush flushes job (flush id flush), so that a barrier
// follows every row its sources were given, and checkpoints it as epoch.
func checkpointAfterFlush(t *testing.T, ctx context.Context, job *Job, flush, epoch uint64) {
	t.Helper()
	flushed(t, ctx, job, flush)
	if err := job.Checkpoint(ctx, epoch); err != nil {
		t.Fatal(err)
	}
}

// jobStore opens the state store of the job named "job" in db, failing t on
// an error; the caller closes it.
func jobStore(t *testing.T, db storage.DB) storage.StateStore {
	t.Helper()
	store, err := db.State("job")
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// checkpointed returns a context that ends with t (or after a minute) and
// the state store of a job named "job" in a fresh in-memory database,
// closed when t ends.
func checkpointed(t *testing.T) (context.Context, storage.StateStore) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	store := jobStore(t, mem.New())
	t.Cleanup(func() { store.Close() })
	return ctx, store
}

// TestStateWriterBuffersAndFlushes checks that a state writer hands its
// table the writes in order, group-prefixed, once it holds stateFlushBytes
// and when flushed, and none before.
func TestStateWriterBuffersAndFlushes(t *testing.T) {
	store := jobStore(t, mem.New())
	tbl, err := store.Table("t", storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n := 0
		if err := tbl.Scan(nil, func(k, v []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	w := &stateWriter{t: tbl}
	value := make([]byte, 1000)
	if err := w.Put(3, []byte("a"), value); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("the table holds %d entries before a flush", n)
	}
	// Enough distinct keys to pass stateFlushBytes: the writer flushes.
	keys := stateFlushBytes/len(value) + 1
	for i := range keys {
		if err := w.Put(5, fmt.Appendf(nil, "k%06d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n == 0 || n > keys+1 {
		t.Fatalf("the table holds %d entries after %d bytes were written", n, w.bytes)
	}
	if err := w.Delete(3, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != keys {
		t.Fatalf("the table holds %d entries after the flush, want %d", n, keys)
	}
	if _, ok, _ := tbl.Get([]byte{0, 3, 'a'}); ok {
		t.Fatal("the deletion written after the put did not win")
	}
	if _, ok, _ := tbl.Get(append([]byte{0, 5}, "k000000"...)); !ok {
		t.Fatal("an entry is missing its key group prefix")
	}
	if w.entries != int64(keys+2) {
		t.Fatalf("%d entries counted, want %d", w.entries, keys+2)
	}
	if err := w.Put(exec.NumKeyGroups, []byte("x"), nil); err == nil {
		t.Fatal("a put in a key group out of range was taken")
	}
}
