package agg

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/internal/giveway"
)

// Snapshots written in the background (exec.BackgroundSnapshotter). A
// snapshot of many groups written in steps between batches still takes
// the aggregate's own time: with every second of input dirtying millions
// of groups, a third of the batches wait behind a step. When it can, the
// aggregate instead hands the pending snapshot to a writer goroutine, on
// another core, and goes on with its batches, paying only the copies on
// write. It can when its state is what a writer may read while the
// aggregate changes other groups: group keys (an int64, or an encoded
// key, a string never changed in place, whose key group the writer finds
// from its values, entryGrouper) and accumulators whose state of every
// group is its arena words (accum.RowState: counts, sums without
// overflow carries, extremes of append-only input); and when the
// runtime's writer can fork (exec.StateWriterForker) and enough groups
// are pending to be worth a goroutine. A windowed aggregate's writer
// writes its watermark first, as the first step does.
//
// The writer reads the arena rows and keys through views taken at the
// barrier (aggstate.ArenaView, IntKeysView, BytesKeysView): growing them
// appends chunks and never moves the rows. The pending bits are shared,
// and each pending slot is written by exactly one side:
//
//   - The writer takes a word of bits at a time: it publishes the word's
//     index in busy, swaps the word to zero, copies the rows and keys of
//     the slots it held, and clears busy; it encodes and writes them
//     afterwards, from the copies.
//   - The aggregate, before it changes or frees a slot (save), clears the
//     slot's bit with an atomic AND. If the bit was set, the slot is its
//     own to save, as in steps; if not, the writer may be copying the
//     slot's word, and if busy is that word the aggregate waits for the
//     copy to end before it changes anything. It looks at the shared bits
//     and busy only for a slot pending at the barrier, and once: it keeps
//     its own copy of the bits (own), which the writer never touches, and
//     clears a slot's bit there when it has looked. The shared words'
//     cache lines are changed by the writer on another core, and reading
//     them for every slot a batch touched (most were not pending) took
//     16 % of the aggregate's time while the writer ran. It waits on
//     copying, a mutex the writer holds while busy is set, not by
//     spinning: on a machine whose cores are all busy, the writer's thread
//     may have lost its core in the middle of a copy, and a spinning
//     aggregate would keep it from getting one back (a trace showed the
//     aggregate yield 5,000 times in 1.4 ms in such a wait).
//
// So a row is never written while the writer copies it, and every
// pending group is written once, as at the barrier. The aggregate's
// saved groups go to a log of their arena rows and keys (rowLog), for
// the writer to encode, under mu, which the aggregate holds for a
// batch's saves (claim and copy together); the writer, having
// taken every word, takes mu once to read how many were saved (none can
// be saved after that: every bit is clear) and writes them last. Its
// order of writes is that of the steps: the deletions, then the groups,
// so a group deleted and created again before the barrier is put after
// its deletion.

// bgMinSlots is the fewest pending slots a snapshot is written in the
// background for; below, steps cost less than starting a goroutine. A
// variable for tests; the crash harness, whose aggregates have fewer
// groups, lowers it in the eddy processes it kills by setting
// EDDY_TEST_BACKGROUND_SNAPSHOT_SLOTS.
var bgMinSlots = 4096

func init() {
	if v := os.Getenv("EDDY_TEST_BACKGROUND_SNAPSHOT_SLOTS"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			bgMinSlots = n
		}
	}
}

// backgroundCounter counts the snapshots written in the background, in
// the operator's own counters (EXPLAIN ANALYZE), from the first.
const backgroundCounter = "snapshots_in_background"

// bgWordHook, when set (tests), is called by the writer before each word
// of pending bits it takes, to vary how its work interleaves with the
// aggregate's.
var bgWordHook func(word int)

// bgCopyHook, when set (tests), is called by the writer while it copies
// the slots of a word (busy set), so that the aggregate meets the copy.
var bgCopyHook func(word int)

// bgSnap is a snapshot being written by a writer goroutine.
type bgSnap struct {
	w      exec.ForkedStateWriter
	cancel context.CancelFunc
	done   chan struct{} // closed when the writer returns
	err    error         // the writer's, set before done is closed

	busy atomic.Int64 // the word of bits the writer copies slots of, or -1
	// copying is held by the writer while busy is set.
	copying sync.Mutex
	// mu is held by the aggregate while it saves pending groups (claims
	// them and copies their entries into saved) and by the writer when it
	// reads how many were saved.
	mu sync.Mutex

	// What the writer reads, set before it starts.
	// A windowed aggregate's watermark, if writeWM, goes into every key
	// group of groups.
	writeWM bool
	wm      int64
	groups  exec.KeyGroupRange
	bits    []uint64 // the pending slots; shared, changed by atomic operations only
	own     []uint64 // the aggregate's: the pending slots it has not looked at in bits
	delKeys []byte
	delEnds []int
	saved   *rowLog // the groups the aggregate saved, appended under mu
	arena   aggstate.ArenaView
	ints    bool                   // integer keys, in keys; else encoded ones, in strs
	keys    aggstate.IntKeysView   // the integer keys
	strs    aggstate.BytesKeysView // the encoded keys
	grouper entryGrouper           // the encoded keys' key groups
	accs    []accum.RowState

	// The writer's scratch.
	rows  []uint64 // the copied rows of a word's slots, a stride each
	ks    []int64  // their integer keys
	nulls []bool
	ss    []string // or their encoded keys
	key   []byte
	val   []byte
}

// SnapshotBusy implements exec.BackgroundSnapshotter.
func (h *HashAgg) SnapshotBusy() <-chan struct{} {
	if b := h.pend.bg; b != nil {
		return b.done
	}
	return nil
}

// backgroundFor returns the forking writer and the accumulators' row
// encoders if the pending snapshot, to be written to w, can be written in
// the background (see above).
func (h *HashAgg) backgroundFor(w exec.StateWriter) (exec.StateWriterForker, []accum.RowState, bool) {
	f, ok := w.(exec.StateWriterForker)
	if !ok || len(h.pend.slots) < bgMinSlots || h.keys.mode == keysGlobal {
		return nil, nil, false
	}
	accs := make([]accum.RowState, len(h.aggs))
	for i, a := range h.aggs {
		rs, ok := a.(accum.RowState)
		if !ok || !rs.RowStateOnly() {
			return nil, nil, false
		}
		accs[i] = rs
	}
	return f, accs, true
}

// startBackground hands the pending snapshot to a writer goroutine.
func (h *HashAgg) startBackground(ctx context.Context, f exec.StateWriterForker, accs []accum.RowState) {
	p := &h.pend
	b := &bgSnap{
		w: f.Fork(), done: make(chan struct{}),
		bits: p.bits, own: append(p.own[:0], p.bits...),
		delKeys: p.delKeys, delEnds: p.delEnds, saved: &p.rows,
		arena: h.arena.View(), ints: h.keys.mode == keysInt, accs: accs,
		grouper: h.grouper,
		writeWM: p.writeWM, wm: p.wm, groups: h.env.KeyGroups,
	}
	p.writeWM = false
	b.grouper.offs = nil // the writer's own scratch
	if b.ints {
		b.keys = h.keys.ints.View()
	} else {
		b.strs = h.keys.bytes.View()
	}
	p.nextDel = len(p.delEnds)
	b.busy.Store(-1)
	ctx, b.cancel = context.WithCancel(ctx)
	p.bg = b
	h.env.Metrics.Counter(backgroundCounter).Add(1)
	go func() {
		defer close(b.done)
		b.err = b.write(ctx)
	}()
}

// joinBackground finishes a snapshot written in the background once its
// writer is done: it reports whether it was, and the writer's error or a
// save's.
func (h *HashAgg) joinBackground() (bool, error) {
	p := &h.pend
	b := p.bg
	select {
	case <-b.done:
	default:
		return false, nil
	}
	p.bg, p.own = nil, b.own
	b.cancel()
	err := b.err
	if jerr := b.w.Join(); err == nil {
		err = jerr
	}
	if err != nil {
		return true, fmt.Errorf("hash aggregate: snapshot: %w", err)
	}
	return true, p.err
}

// stopBackground stops a writer goroutine, if one runs, and waits for it;
// what it wrote is dropped with the snapshot.
func (h *HashAgg) stopBackground() {
	if b := h.pend.bg; b != nil {
		b.cancel()
		<-b.done
		h.pend.bg, h.pend.own = nil, b.own
	}
}

// lockSaves takes the writer goroutine's mu, if one runs, before saves.
func (h *HashAgg) lockSaves() {
	if b := h.pend.bg; b != nil {
		b.mu.Lock()
	}
}

// unlockSaves releases what lockSaves took.
func (h *HashAgg) unlockSaves() {
	if b := h.pend.bg; b != nil {
		b.mu.Unlock()
	}
}

// claim takes the slot of bit in word w of the pending bits for the
// aggregate, which is about to change it, and reports whether it was
// pending. When the slot was pending at the barrier and the writer has
// taken it, it returns once the writer no longer copies the slot's word.
// Only the aggregate calls it.
func (b *bgSnap) claim(w int, bit uint64) bool {
	// A slot not pending at the barrier, or looked at before, needs no
	// more: the writer never reads its row, or has taken it, or the
	// aggregate saved it.
	if b.own[w]&bit == 0 {
		return false
	}
	b.own[w] &^= bit
	// Pending at the barrier: a load tells whether it still is, without
	// the locked instruction an AND is.
	if atomic.LoadUint64(&b.bits[w])&bit != 0 && atomic.AndUint64(&b.bits[w], ^bit)&bit != 0 {
		return true
	}
	if b.busy.Load() == int64(w) {
		// The writer copies this word, and takes every word once: when
		// copying is free again, it has moved past it.
		b.copying.Lock()
		b.copying.Unlock()
	}
	return false
}

// touch reads the words of own and of the shared bits that claims of
// slots will read, and returns a value depending on them. Slots are
// spread over the arena, and so are their words: each a cache miss,
// which this loop, whose loads do not wait on each other, lets the
// processor wait for together, where the claims, each branching on its
// words, wait for them one at a time.
func (b *bgSnap) touch(slots []int32) int64 {
	var sum int64
	n := len(b.own)
	for _, s := range slots {
		if w := int(s >> 6); w < n {
			sum += int64(b.own[w] + atomic.LoadUint64(&b.bits[w]))
		}
	}
	return sum
}

// write writes the pending snapshot: a windowed aggregate's watermark,
// the deletions, the groups not saved, then those saved, and flushes.
func (b *bgSnap) write(ctx context.Context) error {
	if b.writeWM {
		b.val = binary.AppendVarint(b.val[:0], b.wm)
		for g := b.groups.Lo; g < b.groups.Hi; g++ {
			if err := b.w.Put(g, []byte(watermarkKey), b.val); err != nil {
				return err
			}
		}
	}
	start, all := 0, string(b.delKeys) // one copy, not one per key
	for _, end := range b.delEnds {
		g, err := b.grouper.of(all[start:end])
		if err != nil {
			return err
		}
		if err := b.w.Delete(g, b.delKeys[start:end]); err != nil {
			return err
		}
		start = end
	}
	if err := b.writeSlots(ctx); err != nil {
		return err
	}
	b.mu.Lock()
	n := b.saved.n
	b.mu.Unlock()
	for i := range n {
		var err error
		if b.ints {
			err = b.put(b.saved.at(i))
		} else {
			err = b.putKey(b.saved.keyAt(i))
		}
		if err != nil {
			return err
		}
	}
	b.saved.dropKeys(n)
	return b.w.Flush()
}

// writeSlots writes the groups of the pending slots the aggregate has not
// claimed, a word of bits at a time, in slot order.
func (b *bgSnap) writeSlots(ctx context.Context) error {
	stride := b.arena.Stride()
	var pace giveway.Pacer
	for wi := range b.bits {
		if wi%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if atomic.LoadUint64(&b.bits[wi]) == 0 {
			continue
		}
		pace.Step(16)
		if bgWordHook != nil {
			bgWordHook(wi)
		}
		// Copy the rows and keys of the word's slots while the aggregate
		// waits for them, then encode and write from the copies.
		b.copying.Lock()
		b.busy.Store(int64(wi))
		word := atomic.SwapUint64(&b.bits[wi], 0)
		if bgCopyHook != nil {
			bgCopyHook(wi)
		}
		b.rows, b.ks, b.nulls, b.ss = b.rows[:0], b.ks[:0], b.nulls[:0], b.ss[:0]
		for w := word; w != 0; w &= w - 1 {
			s := int32(wi<<6 + bits.TrailingZeros64(w))
			row := b.arena.Row(s)
			if row[rowsWord] == 0 {
				continue // freed before the barrier: its deletion is written
			}
			b.rows = append(b.rows, row...)
			if b.ints {
				k, null := b.keys.Key(s)
				b.ks, b.nulls = append(b.ks, k), append(b.nulls, null)
			} else {
				b.ss = append(b.ss, b.strs.Key(s))
			}
		}
		b.busy.Store(-1)
		b.copying.Unlock()
		for j := range len(b.rows) / stride {
			row := b.rows[j*stride : (j+1)*stride]
			var err error
			if b.ints {
				err = b.put(row, b.ks[j], b.nulls[j])
			} else {
				err = b.putKey(row, b.ss[j])
			}
			if err != nil {
				return err
			}
		}
		clear(b.ss) // not to keep deleted groups' keys alive
	}
	return nil
}

// put writes the entry of the group whose arena row and integer key
// these are.
func (b *bgSnap) put(row []uint64, k int64, null bool) error {
	b.key = appendIntEntryKey(b.key[:0], k, null)
	return b.w.Put(exec.IntKeyGroup(k, null), b.key, b.value(row))
}

// putKey writes the entry of the group whose arena row and encoded key
// these are.
func (b *bgSnap) putKey(row []uint64, key string) error {
	g, err := b.grouper.of(key)
	if err != nil {
		return err
	}
	b.key = append(b.key[:0], key...)
	return b.w.Put(g, b.key, b.value(row))
}

// value returns the entry value of the group of an arena row, in scratch.
func (b *bgSnap) value(row []uint64) []byte {
	b.val = binary.AppendUvarint(b.val[:0], row[rowsWord])
	for _, a := range b.accs {
		b.val = a.AppendRowState(row, b.val)
	}
	return b.val
}
