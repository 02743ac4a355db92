package dataflow

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/internal/kvlog"
	"github.com/eddysql/eddy/storage"
)

// Checkpoints, written once for every operator (the contract is
// exec.Stateful). Job.Checkpoint asks every source for a barrier; a source
// task sends it after the rows it has emitted, and every task aligns it
// across its senders, holding back what a sender sends after its barrier
// until every sender's barrier has arrived (so the snapshot holds exactly
// the input before the barrier). When a task's chain handles the aligned
// barrier, each operator gets it through OnControl and then, if it is
// Stateful, writes what changed to its state table — or, if it is an
// exec.DeferredSnapshotter, begins to, and the task writes the rest in
// steps between the chunks that follow (checkpoint_deferred.go). When the
// barrier has reached the sink and every task has finished its snapshot,
// the job's state store commits the epoch atomically.

// stateTableName names the state table of the operator at position op of
// stage si's chain. Every instance of the stage writes the same table, its
// entries keyed by key group, so the table survives a change of
// parallelism.
func stateTableName(si, op int) string { return fmt.Sprintf("stage%d/op%d", si, op) }

// StateTable names the state table of the operator at position op of the
// chain of s, stage si of its graph: its StateKey, or "stage<si>/op<op>".
func (s StageSpec) StateTable(si, op int) string {
	if k := s.Ops[op].StateKey; k != "" {
		return k
	}
	return stateTableName(si, op)
}

// taskState is a task's stateful operators and their state tables.
type taskState struct {
	ops []exec.Stateful // by chain position; nil for operators without state
	// deferred are the operators among ops that can write their snapshot
	// in steps, by chain position (nil for the others).
	deferred []exec.DeferredSnapshotter
	tables   []storage.StateTable // by chain position
	names    []string             // the tables' names, by chain position
	writers  []*stateWriter       // by chain position
	groups   exec.KeyGroupRange   // the key groups the instance owns
	// written counts the bytes of the entries snapshots wrote, and read
	// those Restore read; the job's, shared by its tasks.
	written, read *atomic.Int64
	// syncTime is the time the task's input waited for snapshots since
	// the last takeSync: the synchronous part of the barrier being
	// handled (Snapshot, BeginSnapshot, and finishing the snapshot of the
	// barrier before).
	syncTime time.Duration
	pend     pendingSnapshot // the snapshot the operators began and have not finished
	// adopt holds, by chain position, the instance of the job stopped
	// at the checkpoint that the operator takes over instead of reading
	// all its groups (handoff.go), until it does.
	adopt []handed
}

// newTaskState finds the stateful operators among ops (the chain of stage
// si, spec) and opens their tables in store. It returns nil when there
// are none.
func newTaskState(store storage.StateStore, spec StageSpec, si int, ops []exec.Operator, groups exec.KeyGroupRange, written, read *atomic.Int64) (*taskState, error) {
	var s *taskState
	for i, op := range ops {
		st, ok := op.(exec.Stateful)
		if !ok {
			continue
		}
		if s == nil {
			s = &taskState{ops: make([]exec.Stateful, len(ops)), deferred: make([]exec.DeferredSnapshotter, len(ops)),
				tables: make([]storage.StateTable, len(ops)), names: make([]string, len(ops)), writers: make([]*stateWriter, len(ops)), groups: groups,
				adopt:   make([]handed, len(ops)),
				written: written, read: read, pend: pendingSnapshot{perEntry: initialEntryCost}}
		}
		name := spec.StateTable(si, i)
		t, err := store.Table(name, storage.TableOptions{})
		if err != nil {
			return nil, fmt.Errorf("opening the state of operator %d: %w", i, err)
		}
		s.names[i] = name
		s.ops[i], s.tables[i], s.writers[i] = st, t, &stateWriter{t: t}
		s.deferred[i], _ = op.(exec.DeferredSnapshotter)
	}
	return s, nil
}

// restore has every stateful operator rebuild the state of the instance's
// key groups from the last committed checkpoint — taking over the old
// instance handed to it, if any (handoff.go) — counting the bytes read
// per table and key group into byGroup. When that checkpoint is the final
// one of a job whose input ended for good (finished), the operators whose
// state it left out start empty (checkpoint_finished.go).
func (s *taskState) restore(ctx context.Context, byGroup *restoreCounts, finished bool) error {
	for i, op := range s.ops {
		if op == nil || (finished && dropsAtEnd(op)) {
			continue
		}
		r := stateReader{t: s.tables[i], read: s.read, groups: byGroup.of(s.names[i])}
		if err := s.adoptOrRestore(ctx, i, r); err != nil {
			return fmt.Errorf("restoring the state of operator %d: %w", i, err)
		}
	}
	return nil
}

// snapshot has operator i, if stateful, write what changed up to the
// barrier of epoch, or begin to: an exec.DeferredSnapshotter with entries
// left joins the pending snapshot, which the task finishes in steps.
func (s *taskState) snapshot(ctx context.Context, i int, epoch uint64) error {
	if s == nil || s.ops[i] == nil {
		return nil
	}
	w := s.writers[i]
	start := time.Now()
	var err error
	if d := s.deferred[i]; d != nil {
		var pending bool
		if pending, err = d.BeginSnapshot(ctx, epoch, w); err == nil && pending {
			s.pend.epoch = epoch
			s.pend.ops = append(s.pend.ops, i)
			if b, ok := d.(exec.BackgroundSnapshotter); ok && b.SnapshotBusy() != nil {
				s.pend.since = start
			}
		}
	} else {
		err = s.ops[i].Snapshot(ctx, epoch, w)
	}
	if ferr := w.flush(); err == nil {
		err = ferr
	}
	s.syncTime += time.Since(start)
	s.wrote(w)
	if err != nil {
		return fmt.Errorf("snapshotting operator %d for checkpoint %d: %w", i, epoch, err)
	}
	return nil
}

// wrote adds the bytes w wrote since the last call to the job's count,
// and returns the number of entries.
func (s *taskState) wrote(w *stateWriter) int64 {
	s.written.Add(w.bytes)
	n := w.entries
	w.bytes, w.entries = 0, 0
	return n
}

// takeSync returns the time the task's operators spent in Snapshot for
// the barrier just handled, and starts counting afresh.
func (s *taskState) takeSync() time.Duration {
	if s == nil {
		return 0
	}
	d := s.syncTime
	s.syncTime = 0
	return d
}

// groupKeyLen is the size of the key-group prefix of a state key: two bytes,
// big-endian, so a table's entries sort by group.
const groupKeyLen = 2

// stateWriter writes a snapshot's entries into an operator's table, each
// key prefixed by its key group. It buffers them in a log and writes the
// log whole (storage.StateTable.WriteLog) when it holds stateFlushBytes
// and when the snapshot, or a step of it, ends (flush): a write then costs
// a copy into the log, not the store's locks, which the job's tasks share.
type stateWriter struct {
	t       storage.StateTable
	log     kvlog.Log // the writes not given to t yet
	group   [groupKeyLen]byte
	bytes   int64 // keys and values written
	entries int64 // puts and deletes written
}

// stateFlushBytes is how much a stateWriter buffers before it writes to
// its table: enough to take the locks once per thousands of entries, and
// little enough to keep in memory for every stateful operator.
const stateFlushBytes = 1 << 20

// add buffers a put of key in group (a deletion when del is set).
func (w *stateWriter) add(group int, key, value []byte, del bool) error {
	if group < 0 || group >= exec.NumKeyGroups {
		return fmt.Errorf("key group %d out of range", group)
	}
	if len(key) > kvlog.MaxLen-groupKeyLen || len(value) > kvlog.MaxLen {
		return fmt.Errorf("a state entry of %d bytes of key and %d of value: %w", len(key), len(value), storage.ErrTooLarge)
	}
	binary.BigEndian.PutUint16(w.group[:], uint16(group))
	w.log.Append(w.group[:], key, value, del)
	w.bytes += int64(groupKeyLen + len(key) + len(value))
	w.entries++
	if w.log.Size() >= stateFlushBytes {
		return w.flush()
	}
	return nil
}

// flush writes the buffered entries into the table.
func (w *stateWriter) flush() error {
	if w.log.Len() == 0 {
		return nil
	}
	err := w.t.WriteLog(&w.log)
	w.log.Reset()
	return err
}

var _ exec.StateWriterForker = (*stateWriter)(nil)

// Fork implements exec.StateWriterForker: the writer it returns buffers
// in a log of its own and writes it into the same table.
func (w *stateWriter) Fork() exec.ForkedStateWriter {
	return &forkedWriter{stateWriter: stateWriter{t: w.t}, parent: w}
}

// forkedWriter is a stateWriter for another goroutine (a snapshot written
// in the background), whose counts join its parent's at the end.
type forkedWriter struct {
	stateWriter
	parent *stateWriter
}

// Flush implements exec.ForkedStateWriter.
func (f *forkedWriter) Flush() error { return f.flush() }

// Join implements exec.ForkedStateWriter.
func (f *forkedWriter) Join() error {
	err := f.flush()
	f.parent.bytes += f.bytes
	f.parent.entries += f.entries
	f.bytes, f.entries = 0, 0
	f.log.Release()
	return err
}

// Put implements exec.StateWriter.
func (w *stateWriter) Put(group int, key, value []byte) error {
	return w.add(group, key, value, false)
}

// Delete implements exec.StateWriter.
func (w *stateWriter) Delete(group int, key []byte) error {
	return w.add(group, key, nil, true)
}

// stateReader reads an operator's table by key group, counting the bytes
// it reads into read and, per key group, into groups (each if set).
type stateReader struct {
	t      storage.StateTable
	read   *atomic.Int64
	groups *[exec.NumKeyGroups]atomic.Int64
}

// Scan implements exec.StateReader. It reads the groups' entries in one
// scan of the table (a group's are those under its 2-byte prefix), not one
// per group: a scan seeks in every run of the store, decoding a block of
// each.
func (r stateReader) Scan(ctx context.Context, groups exec.KeyGroupRange, fn func(group int, key, value []byte) error) error {
	lo, hi := max(groups.Lo, 0), min(groups.Hi, exec.NumKeyGroups)
	if lo >= hi {
		return nil
	}
	var read, inGroup int64
	g := -1
	counted := func() {
		if r.groups != nil && g >= 0 {
			r.groups[g].Add(inGroup)
		}
		read += inGroup
		inGroup = 0
	}
	err := r.t.ScanRange(groupPrefix(lo), groupPrefix(hi), func(k, v []byte) error {
		if len(k) < groupKeyLen {
			return fmt.Errorf("%w: a state key of %d bytes has no key group", storage.ErrCorrupt, len(k))
		}
		if kg := int(binary.BigEndian.Uint16(k)); kg != g {
			if err := ctx.Err(); err != nil {
				return err
			}
			counted()
			g = kg
		}
		inGroup += int64(len(k) + len(v))
		return fn(g, k[groupKeyLen:], v)
	})
	counted()
	if r.read != nil {
		r.read.Add(read)
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// groupPrefix returns the key prefix of key group g's entries; for g =
// exec.NumKeyGroups, the bound after the last group's.
func groupPrefix(g int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(g)) }

// Checkpoint takes checkpoint epoch, which must be greater than every
// earlier one: every source sends a barrier numbered epoch after the rows
// it has emitted, every stateful operator snapshots what changed when the
// aligned barrier reaches it, and once the barrier has reached the sink
// and every task has finished writing its snapshot the job's state store
// commits epoch. It returns when the epoch is committed, or with an error
// when the job has no state store, ends first, or ctx is done.
func (j *Job) Checkpoint(ctx context.Context, epoch uint64) error {
	if j.store == nil {
		return fmt.Errorf("dataflow: job %s has no state store", j.name)
	}
	err := j.checkpointAt(ctx, epoch)
	if errors.Is(err, errFinishing) {
		_, err = j.awaitFinal(ctx)
	}
	return err
}

// checkpointAt takes checkpoint epoch for Checkpoint, one at a time.
func (j *Job) checkpointAt(ctx context.Context, epoch uint64) error {
	j.ckptRun.Lock()
	defer j.ckptRun.Unlock()
	j.ckptMu.Lock()
	last := j.lastEpoch
	j.ckptMu.Unlock()
	if epoch <= last {
		return fmt.Errorf("dataflow: checkpoint %d of %s: not after the last one, %d", epoch, j.name, last)
	}
	return j.takeCheckpoint(ctx, epoch, func() error { return j.checkpoint(ctx, epoch) })
}

// checkpoint takes checkpoint epoch for Checkpoint.
func (j *Job) checkpoint(ctx context.Context, epoch uint64) error {
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			if t.source != nil {
				if err := t.requestBarrier(epoch); err != nil {
					return fmt.Errorf("dataflow: checkpoint %d: %w", epoch, err)
				}
			}
		}
	}
	var reached bool
	var state JobState
	var jerr error
	err := j.waitFor(ctx, func() bool {
		// A task counts a snapshot it leaves pending before it forwards
		// the barrier (Job.deferred).
		reached, state, jerr = j.barrier >= epoch && j.deferred == 0, j.state, j.err
		return reached || state != JobRunning
	})
	switch {
	case err != nil:
		return err
	case reached:
		if err := j.store.Commit(ctx, epoch); err != nil {
			return err
		}
		return j.publish(ctx, epoch)
	case state == JobFailed:
		return fmt.Errorf("dataflow: checkpoint %d: the job failed: %w", epoch, jerr)
	case state == JobFinished && j.final:
		return errFinishing
	}
	return fmt.Errorf("dataflow: checkpoint %d: the job ended (%s)", epoch, state)
}

// requestBarrier asks a source task to send barrier epoch after the rows
// it has emitted, and wakes it if it waits.
//
// A source that has ended sends no more barriers: its end position goes
// into the checkpoint instead (written once; the store keeps it for the
// later epochs). Its rows and its end of input precede the barrier at
// every task downstream, which aligns an ended sender's end of input as
// its barrier, so the checkpoint holds all of them.
func (t *task) requestBarrier(epoch uint64) error {
	t.mu.Lock()
	ended, end := t.endPos != nil, t.endPos
	if ended {
		t.endPos = endWritten
	} else {
		t.barrier = max(t.barrier, epoch)
	}
	wake := t.wake
	t.mu.Unlock()
	switch {
	case !ended:
		if wake != nil {
			wake()
		}
	case len(end) > 0: // not written yet
		return t.srcPos.table.Put(t.srcPos.key, end)
	}
	return nil
}

// endWritten is the endPos of a source whose end position a checkpoint
// has written.
var endWritten = []byte{}

// sourceEnded records where the task's source ended, for the checkpoints
// requested from now on, and sends the barrier requested before (whose
// position is the end too).
func (t *task) sourceEnded(ctx context.Context) error {
	if t.srcPos == nil {
		return nil
	}
	end, err := t.srcPos.encode(t)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.endPos = end
	t.mu.Unlock()
	return t.sendBarrier(ctx)
}

// sendBarrier sends the barrier requested since the last call, if any.
func (t *task) sendBarrier(ctx context.Context) error {
	t.mu.Lock()
	epoch := t.barrier
	t.barrier = 0
	t.mu.Unlock()
	if epoch == 0 {
		return nil
	}
	if t.srcPos != nil {
		if err := t.srcPos.record(t); err != nil {
			return err
		}
	}
	return t.deliver(ctx, exec.Control{Kind: exec.Barrier, Epoch: epoch})
}

// hold reports whether a message from sender must wait: the sender has
// sent a barrier that is not aligned yet, so what it sends after the
// barrier belongs to the next epoch. Held messages are handled, in the
// order they arrived, once the barrier is aligned.
func (t *task) hold(m message) bool {
	if !t.align.blocked(m.sender) {
		return false
	}
	t.held = append(t.held, m)
	return true
}

// releaseHeld handles the messages held back while a barrier was being
// aligned; a sender that already sent its next barrier holds again.
func (t *task) releaseHeld(ctx context.Context) (ended bool, err error) {
	held := t.held
	t.held = nil
	for i, m := range held {
		if ended, err = t.handle(ctx, m); err != nil || ended {
			for _, rest := range held[i+1:] {
				rest.release()
			}
			return ended, err
		}
	}
	return false, nil
}

// publish has every exec.Committer of the job publish what it staged up to
// epoch, which has committed. A failure fails the job: the epoch stays
// committed, and a restore publishes what it staged.
func (j *Job) publish(ctx context.Context, epoch uint64) error {
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			for i, op := range t.chain.ops {
				c, ok := op.(exec.Committer)
				if !ok {
					continue
				}
				if err := c.Commit(ctx, epoch); err != nil {
					err = fmt.Errorf("%s: publishing checkpoint %d: %w", sr.spec.Ops[i].Name, epoch, err)
					j.fail(err)
					return err
				}
			}
		}
	}
	return nil
}
