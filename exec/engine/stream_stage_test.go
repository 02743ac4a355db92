package engine

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage/mem"
)

// stageHarness runs two-phase streamSinks appending to stream 1 of an
// in-memory DB, as the instances of one query across crashes.
type stageHarness struct {
	t     *testing.T
	db    *mem.DB
	alloc memory.Allocator
	ctx   context.Context
}

var stageSchema = arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

func newStageHarness(t *testing.T) *stageHarness {
	return &stageHarness{t: t, db: mem.New(), alloc: exectest.Alloc(t), ctx: context.Background()}
}

// open starts a sink instance; with st, it restores from st's entries.
func (h *stageHarness) open(st *exectest.State) *streamSink {
	h.t.Helper()
	s := &streamSink{log: h.db.Log(), kv: h.db.KV(), stream: 1, schema: stageSchema,
		mark: func(i int) []byte { return derivedKey(1, i) }}
	env := &exec.Env{Alloc: h.alloc, KeyGroups: exec.KeyGroupsOf(0, 1), Metrics: &exec.OperatorMetrics{},
		Checkpointing: true, Resuming: st != nil}
	if err := s.Open(h.ctx, env); err != nil {
		h.t.Fatal(err)
	}
	if st != nil {
		if err := s.Restore(h.ctx, st, env.KeyGroups); err != nil {
			h.t.Fatal(err)
		}
	}
	return s
}

// feed sends the sink a chunk of the rows xs.
func (h *stageHarness) feed(s *streamSink, xs ...int) {
	h.t.Helper()
	var b strings.Builder
	b.WriteString("bigint\n")
	for _, x := range xs {
		b.WriteString("+I " + strconv.Itoa(x) + "\n")
	}
	c := exectest.Chunk(h.t, h.alloc, b.String())
	defer c.Batch.Release()
	if err := s.Process(h.ctx, 0, exec.Chunk{Batch: c.Batch}, nil); err != nil {
		h.t.Fatal(err)
	}
}

// commit publishes what s staged up to epoch.
func (h *stageHarness) commit(s *streamSink, epoch uint64) {
	h.t.Helper()
	if err := s.Commit(h.ctx, epoch); err != nil {
		h.t.Fatal(err)
	}
}

// checkpoint snapshots s into st as checkpoint epoch, commits it, and
// checks that the log then holds log.
func (h *stageHarness) checkpoint(s *streamSink, st *exectest.State, epoch uint64, log ...string) {
	h.t.Helper()
	st.Snapshot(h.t, s, epoch)
	h.commit(s, epoch)
	h.wantLog(log...)
}

// wantEntries checks that st holds n entries.
func (h *stageHarness) wantEntries(st *exectest.State, n int) {
	h.t.Helper()
	if st.Len() != n {
		h.t.Fatalf("%d entries after the checkpoint, want %d", st.Len(), n)
	}
}

// logged returns the log's entries, each as its rows joined by spaces.
func (h *stageHarness) logged() []string {
	h.t.Helper()
	var out []string
	_, err := h.db.Log().Read(h.ctx, 1, 0, math.MaxUint64, stageSchema, h.alloc, func(_ uint64, b arrow.RecordBatch) error {
		col := b.Column(0).(*array.Int64)
		var xs []string
		for i := range col.Len() {
			xs = append(xs, strconv.FormatInt(col.Value(i), 10))
		}
		out = append(out, strings.Join(xs, " "))
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

func (h *stageHarness) wantLog(want ...string) {
	h.t.Helper()
	if got := h.logged(); strings.Join(got, "|") != strings.Join(want, "|") {
		h.t.Fatalf("the log holds %q, want %q", got, want)
	}
}

// TestStreamStageCrashBeforeCommit: rows reach the log only when their
// checkpoint commits; a crash after the snapshot but before the commit
// leaves them in the checkpoint, and the restore appends them.
func TestStreamStageCrashBeforeCommit(t *testing.T) {
	h := newStageHarness(t)
	st := exectest.NewState()
	s := h.open(nil)
	h.feed(s, 1, 2)
	h.feed(s, 3)
	st.Snapshot(t, s, 1)
	h.wantLog()  // staged, not committed
	h.feed(s, 4) // after the checkpoint: lost with the crash, computed again
	s = h.open(st.Clone())
	h.wantLog("1 2", "3")
	h.feed(s, 4)
	h.checkpoint(s, st, 2, "1 2", "3", "4")
	// The restored batches' entries went with the next snapshot.
	h.wantEntries(st, 2) // the batch of checkpoint 2 and the position
	if v, err := appendedRows(h.db.KV(), derivedKey(1, 0)); err != nil || v != 4 {
		t.Fatalf("the record of rows appended is %d (%v), want 4", v, err)
	}
}

// TestStreamStageCrashAfterCommit: a crash after the commit appended the
// batches but before the next snapshot deleted their entries: the
// restore appends nothing twice, and the next checkpoint deletes them.
func TestStreamStageCrashAfterCommit(t *testing.T) {
	h := newStageHarness(t)
	st := exectest.NewState()
	s := h.open(nil)
	h.feed(s, 1)
	st.Snapshot(t, s, 1)
	h.feed(s, 2, 3)
	st.Snapshot(t, s, 2)
	h.commit(s, 1)
	h.wantLog("1")
	h.commit(s, 2)
	h.commit(s, 2) // more than once for an epoch
	h.wantLog("1", "2 3")
	s = h.open(st.Clone())
	h.wantLog("1", "2 3")
	h.feed(s, 4)
	h.checkpoint(s, st, 3, "1", "2 3", "4")
	h.wantEntries(st, 2)
	// A crash in the middle of a commit: checkpoint 4's first batch was
	// appended, its second not.
	h.feed(s, 5)
	h.feed(s, 6)
	st.Snapshot(t, s, 4)
	first := s.stage.staged[:1]
	if err := s.appendEncoded(first[0]); err != nil {
		t.Fatal(err)
	}
	s = h.open(st.Clone())
	h.wantLog("1", "2 3", "4", "5", "6")
}

// TestStreamStageEndOfInput: at the end of a bounded input the sink
// appends what it holds at once; a restore from the checkpoint before
// skips the rows its recomputation yields again.
func TestStreamStageEndOfInput(t *testing.T) {
	h := newStageHarness(t)
	st := exectest.NewState()
	s := h.open(nil)
	h.feed(s, 1)
	st.Snapshot(t, s, 1)
	c1 := st.Clone() // checkpoint 1, the last to commit
	h.commit(s, 1)
	h.feed(s, 2)
	st.Snapshot(t, s, 2) // never committed
	h.feed(s, 3, 4)
	if err := s.OnControl(h.ctx, exec.Control{Kind: exec.EndOfInput}, nil); err != nil {
		t.Fatal(err)
	}
	h.wantLog("1", "2", "3 4")
	s = h.open(c1)
	// The rows computed again (2, 3, 4) may come in other batches.
	h.feed(s, 2, 3)
	h.wantLog("1", "2", "3 4")
	h.feed(s, 4, 5)
	st = c1
	h.checkpoint(s, st, 2, "1", "2", "3 4", "5")
}

func binaryUint64(n uint64) []byte {
	var b [8]byte
	for i := range 8 {
		b[7-i] = byte(n >> (8 * i))
	}
	return b[:]
}

// TestStreamStageDamaged: damaged entries, or a log shorter than the
// checkpoint recorded, fail the restore with an error.
func TestStreamStageDamaged(t *testing.T) {
	h := newStageHarness(t)
	st := exectest.NewState()
	s := h.open(nil)
	h.feed(s, 1, 2)
	st.Snapshot(t, s, 1)
	restore := func(st *exectest.State) error {
		s := &streamSink{log: h.db.Log(), kv: h.db.KV(), stream: 1, schema: stageSchema,
			mark: func(i int) []byte { return derivedKey(1, i) }}
		env := &exec.Env{Alloc: h.alloc, KeyGroups: exec.KeyGroupsOf(0, 1), Checkpointing: true, Resuming: true}
		if err := s.Open(h.ctx, env); err != nil {
			return err
		}
		return s.Restore(h.ctx, st, env.KeyGroups)
	}
	for _, damage := range [][]byte{nil, {1}, []byte("garbage that is not a batch")} {
		bad := st.Clone()
		bad.Damage(damage)
		if err := restore(bad); err == nil {
			t.Errorf("a restore from entries damaged to %q succeeded", damage)
		}
	}
	noPos := st.Clone()
	delete(noPos.Entries[0], string([]byte{nextKey}))
	if err := restore(noPos); err == nil || !strings.Contains(err.Error(), "no record of their position") {
		t.Errorf("a restore without the position entry: %v", err)
	}
	h.commit(s, 1)
	// The log lost the rows the checkpoint recorded as appended.
	if err := h.db.KV().Put(derivedKey(1, 0), binaryUint64(0)); err != nil {
		t.Fatal(err)
	}
	after := exectest.NewState()
	after.Entries[0] = map[string][]byte{string([]byte{nextKey}): binaryUint64(2)}
	if err := restore(after); err == nil || !strings.Contains(err.Error(), "fewer than the 2") {
		t.Errorf("a restore over a log shorter than recorded: %v", err)
	}
}
