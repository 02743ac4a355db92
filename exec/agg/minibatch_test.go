package agg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// foldPair is two aggregates of one configuration fed the same input: one
// emitting after every chunk, the other folding chunks' changes (its
// changelog unobserved).
type foldPair struct {
	t           *testing.T
	plain, fold *HashAgg
	plainOut    *exectest.Collector
	foldOut     *exectest.Collector
	header      string
}

func newFoldPair(t *testing.T, cfg HashConfig, input string) *foldPair {
	t.Helper()
	alloc := exectest.Alloc(t)
	p := &foldPair{t: t, plain: NewHashAgg(cfg), fold: NewHashAgg(cfg), header: input + "\n",
		plainOut: newCollector(t, cfg), foldOut: newCollector(t, cfg)}
	exectest.Open(t, p.plain, exec.NewTestEnv(alloc))
	env := exec.NewTestEnv(alloc)
	env.CoarseChangelog = true
	exectest.Open(t, p.fold, env)
	return p
}

// chunk feeds both the rows.
func (p *foldPair) chunk(rows []string) {
	p.t.Helper()
	ctx := context.Background()
	for _, side := range []struct {
		h   *HashAgg
		out *exectest.Collector
	}{{p.plain, p.plainOut}, {p.fold, p.foldOut}} {
		c := exectest.Chunk(p.t, side.h.env.Alloc, p.header+strings.Join(rows, "\n"))
		err := side.h.Process(ctx, 0, c, side.out)
		c.Batch.Release()
		if err != nil {
			p.t.Fatal(err)
		}
	}
}

// control sends both m.
func (p *foldPair) control(m exec.Control) {
	p.t.Helper()
	ctx := context.Background()
	if err := p.plain.OnControl(ctx, m, p.plainOut); err != nil {
		p.t.Fatal(err)
	}
	if err := p.fold.OnControl(ctx, m, p.foldOut); err != nil {
		p.t.Fatal(err)
	}
}

// flush has the folding aggregate emit what it holds, as its task does
// before it waits.
func (p *foldPair) flush() {
	p.t.Helper()
	if err := p.fold.FlushDeferred(context.Background(), p.foldOut); err != nil {
		p.t.Fatal(err)
	}
	if err := p.plain.FlushDeferred(context.Background(), p.plainOut); err != nil {
		p.t.Fatal(err)
	}
}

// same fails unless both integrated outputs agree on the rows keep selects
// (nil: all).
func (p *foldPair) same(step string, keep func(row string) bool) {
	p.t.Helper()
	sel := func(rows []string) []string {
		if keep == nil {
			return rows
		}
		return slices.DeleteFunc(slices.Clone(rows), func(r string) bool { return !keep(r) })
	}
	got, want := sel(p.foldOut.Rows()), sel(p.plainOut.Rows())
	if !slices.Equal(got, want) {
		p.t.Fatalf("%s: folding aggregate\n%s\nper chunk\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if keep == nil {
		// Nothing held: the groups are the same too (those of late rows
		// only are freed).
		if got, want := p.fold.keys.live(), p.plain.keys.live(); got != want {
			p.t.Fatalf("%s: %d groups against %d", step, got, want)
		}
	}
}

// TestMiniBatchFoldsChanges feeds random append-only chunks, flushes,
// barriers and watermarks to an aggregate that folds chunks' changes and
// to one that does not: whenever the folding one has emitted what it
// holds (its task about to wait, a barrier, a flush) the two integrate to
// the same rows; a watermark that closes windows finds the closed windows'
// rows the same too, so they were emitted before the windows closed; and
// the folding aggregate emits fewer changes.
func TestMiniBatchFoldsChanges(t *testing.T) {
	for _, keys := range []int{6, 3000} {
		t.Run(fmt.Sprintf("keys=%d", keys), func(t *testing.T) {
			const input = "bigint bigint bigint" // window start, key, value
			cfg := testConfig(t, input, []int{0, 1}, "count(*)", "sum(2)", "max(2)")
			cfg.AppendOnly = true
			const size = 100
			cfg.Close = &WindowClose{Key: 0, Offset: size}
			seeds := uint64(6)
			if keys > 100 {
				seeds = 2 // many groups: slots past several arena chunks
			}
			for seed := range seeds {
				r := rand.New(rand.NewPCG(seed, 3))
				p := newFoldPair(t, cfg, input)
				if !p.fold.mb.on || p.plain.mb.on {
					t.Fatalf("folding: %v and %v, want only the aggregate whose changelog is unobserved", p.fold.mb.on, p.plain.mb.on)
				}
				wm, epoch, keptOpen := int64(0), uint64(0), 0
				for step := range 200 {
					switch k := r.IntN(20); {
					case k < 13:
						rows := make([]string, 1+r.IntN(8+keys/10))
						for i := range rows {
							start := (wm/size + int64(r.IntN(3))) * size // open windows, and a late row now and then
							if r.IntN(10) == 0 {
								start = wm - size
							}
							rows[i] = fmt.Sprintf("+I %d %d %d", start, r.IntN(keys), r.IntN(100))
						}
						p.chunk(rows)
					case k < 16:
						p.flush()
						p.same(fmt.Sprintf("seed %d step %d, after a flush", seed, step), nil)
					case k < 17:
						epoch++
						p.control(exec.Control{Kind: exec.Barrier, Epoch: epoch})
						p.same(fmt.Sprintf("seed %d step %d, after a barrier", seed, step), nil)
					default:
						wm += int64(r.IntN(2 * size))
						p.control(exec.Control{Kind: exec.Watermark, Watermark: wm})
						closed := func(row string) bool {
							start, _ := strconv.ParseInt(strings.Fields(row)[0], 10, 64)
							return start+size <= wm
						}
						p.same(fmt.Sprintf("seed %d step %d, after watermark %d", seed, step, wm), closed)
						for _, s := range p.fold.mb.slots[p.fold.mb.first:] {
							if c := p.fold.close; int(s) < len(c.slotAt) && c.slotAt[s] != noClose && c.slotAt[s] <= wm {
								t.Fatalf("seed %d step %d: a group of a closed window still held", seed, step)
							}
							keptOpen++
						}
					}
				}
				p.control(exec.Control{Kind: exec.EndOfInput})
				p.same(fmt.Sprintf("seed %d, at the end", seed), nil)
				if keptOpen == 0 {
					t.Fatalf("seed %d: no open window's group stayed held past a watermark", seed)
				}
				folded, plain := len(strings.Split(p.foldOut.Take(), "\n")), len(strings.Split(p.plainOut.Take(), "\n"))
				if folded >= plain {
					t.Fatalf("seed %d: %d changes folded against %d per chunk", seed, folded, plain)
				}
			}
		})
	}
}

// TestMiniBatchBounds checks that a folding aggregate emits, after a
// chunk, the groups held since miniBatchChunks chunks before and the
// oldest beyond miniBatchGroups, and only those.
func TestMiniBatchBounds(t *testing.T) {
	cfg := runningWindows(t)
	p := newFoldPair(t, cfg, "bigint bigint")
	// Group 0 every chunk, group i in chunk i: after chunk
	// miniBatchChunks, groups 0 and 1, held since the first, go.
	for i := range miniBatchChunks {
		if got := p.foldOut.Take(); got != "" {
			t.Fatalf("emitted after %d chunks: %q", i, got)
		}
		p.chunk([]string{"+I 0 0", "+I " + strconv.Itoa(i+1) + " 0"})
	}
	if got, want := p.foldOut.Take(), "+I 0 32\n+I 1 1"; got != want {
		t.Fatalf("after %d chunks: emitted\n%s\nwant\n%s", miniBatchChunks, got, want)
	}
	if err := p.fold.FlushDeferred(context.Background(), p.foldOut); err != nil {
		t.Fatal(err)
	}
	p.foldOut.Take()

	// Chunks of new groups only: past miniBatchGroups, the oldest go, and
	// a chunk emits no more than it brought.
	const per = 4096
	next := 1000
	for c := range 2*miniBatchGroups/per + 4 { // past the bound, then past a compaction of the held arrays
		rows := make([]string, per)
		for i := range rows {
			rows[i] = "+I " + strconv.Itoa(next) + " 0"
			next++
		}
		p.chunk(rows)
		got := p.foldOut.Take()
		n := 0
		if got != "" {
			n = len(strings.Split(got, "\n"))
		}
		held := len(p.fold.mb.slots) - p.fold.mb.first
		switch {
		case held > miniBatchGroups:
			t.Fatalf("chunk %d: %d groups held", c, held)
		case n > per:
			t.Fatalf("chunk %d: emitted %d changes for %d new groups", c, n, per)
		case (c+1)*per > miniBatchGroups && n != per:
			t.Fatalf("chunk %d: emitted %d changes past the bound, want %d", c, n, per)
		case n > 0 && !strings.HasPrefix(got, "+I "+strconv.Itoa(1000+(c+1)*per-held-n)+" "):
			t.Fatalf("chunk %d: did not emit the oldest groups first: %.40q", c, got)
		}
	}
}

// TestMiniBatchOnlyWhenItCan checks which aggregates fold chunks' changes:
// windowed ones emitting running results over input that never retracts,
// whose changelog no one observes.
func TestMiniBatchOnlyWhenItCan(t *testing.T) {
	base := func() HashConfig { return runningWindows(t) }
	for _, tc := range []struct {
		name   string
		edit   func(*HashConfig)
		coarse bool
		want   bool
	}{
		{"running windows, append-only, unobserved", func(*HashConfig) {}, true, true},
		{"observed", func(*HashConfig) {}, false, false},
		{"retracting", func(c *HashConfig) { c.AppendOnly = false }, true, false},
		{"emit on window close", func(c *HashConfig) { c.Close.Emit = true }, true, false},
		{"no windows", func(c *HashConfig) { c.Close = nil }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			tc.edit(&cfg)
			h := NewHashAgg(cfg)
			env := exec.NewTestEnv(exectest.Alloc(t))
			env.CoarseChangelog = tc.coarse
			exectest.Open(t, h, env)
			if h.mb.on != tc.want {
				t.Fatalf("folds: %v, want %v", h.mb.on, tc.want)
			}
		})
	}
}

// TestMiniBatchStopsWhenItSavesLittle checks that an aggregate whose
// chunks seldom touch a group again stops folding at its first check,
// emitting what it held, and that one whose chunks do goes on.
func TestMiniBatchStopsWhenItSavesLittle(t *testing.T) {
	cfg := runningWindows(t)
	for _, tc := range []struct {
		name  string
		key   func(chunk, row int) int
		folds bool
	}{
		{"new keys", func(c, r int) int { return c*8 + r }, false},
		{"repeated keys", func(c, r int) int { return (c*8 + r) % 64 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFoldPair(t, cfg, "bigint bigint")
			for c := range foldCheckChunks {
				rows := make([]string, 8)
				for r := range rows {
					rows[r] = "+I " + strconv.Itoa(tc.key(c, r)) + " 0"
				}
				p.chunk(rows)
			}
			if p.fold.mb.on != tc.folds {
				t.Fatalf("folds after %d chunks: %v, want %v", foldCheckChunks, p.fold.mb.on, tc.folds)
			}
			if !tc.folds {
				p.same("once it stopped", nil)
				p.chunk([]string{"+I 0 0"})
				p.same("after it stopped", nil)
			}
		})
	}
}

// runningWindows is an aggregate folding chunks' changes, COUNT(*) GROUP
// BY a window column k0 (windows of 1,000,000: the tests send no
// watermark that would close one) over append-only input.
func runningWindows(t *testing.T) HashConfig {
	cfg := testConfig(t, "bigint bigint", []int{0}, "count(*)")
	cfg.AppendOnly = true
	cfg.Close = &WindowClose{Key: 0, Offset: 1_000_000}
	return cfg
}
