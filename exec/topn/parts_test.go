package topn

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestProcessPartsEqualsProcess feeds two Top-Ns the same random changes:
// one a chunk at a time, the other as an exchange sends them to an
// instance that takes parts — each step's rows spread over one to three
// producer chunks, among rows of other instances that the parts leave
// out. Their output must be the same, step by step, and so must the state
// they hold.
func TestProcessPartsEqualsProcess(t *testing.T) {
	for _, tc := range randomCases {
		cfg := testConfig(t, tc.input, tc.part, tc.order, tc.limit, tc.rowNumber, tc.appendOnly)
		if cfg.dedup() {
			t.Run(tc.name, func(t *testing.T) {
				op, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if op.TakesParts() {
					t.Fatal("de-duplication takes parts")
				}
			})
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(4) {
				partsRun(t, tc, cfg, rand.New(rand.NewPCG(seed, 11)))
			}
		})
	}
}

func partsRun(t *testing.T, tc randomCase, cfg Config, r *rand.Rand) {
	t.Helper()
	alloc := exectest.Alloc(t)
	ctx := context.Background()
	open := func() (*Operator, *exec.Env) {
		op, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		env := exec.NewTestEnv(alloc)
		if err := op.Open(ctx, env); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { op.Close() })
		return op, env
	}
	whole, wholeEnv := open()
	parted, partedEnv := open()
	if !parted.TakesParts() {
		t.Fatal("a general Top-N does not take parts")
	}
	wholeOut, partedOut := newCollector(t), newCollector(t)
	changes := randomChanges(tc, r)
	others := randomChanges(randomCase{input: tc.input, wide: tc.wide, appendOnly: true}, r)
	header := tc.input + "\n"
	for step := range 40 {
		lines := changes.Next(12)
		c := exectest.Chunk(t, alloc, header+strings.Join(lines, "\n"))
		err := whole.Process(ctx, 0, c, wholeOut)
		c.Batch.Release()
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}

		// The same rows as parts: each group of them in a producer chunk
		// of its own, after and between rows the parts leave out.
		var chunks []exec.Chunk
		var sels [][]int32
		for rest := lines; len(rest) > 0; {
			n := 1 + r.IntN(len(rest))
			var text []string
			var sel []int32
			for _, line := range rest[:n] {
				for range r.IntN(3) {
					text = append(text, others.Next(1)...)
				}
				sel = append(sel, int32(len(text)))
				text = append(text, line)
			}
			for range r.IntN(3) {
				text = append(text, others.Next(1)...)
			}
			chunks = append(chunks, exectest.Chunk(t, alloc, header+strings.Join(text, "\n")))
			sels = append(sels, sel)
			rest = rest[n:]
		}
		err = parted.ProcessParts(ctx, 0, chunks, sels, partedOut)
		for _, c := range chunks {
			c.Batch.Release()
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if got, want := partedOut.Take(), wholeOut.Take(); got != want {
			t.Fatalf("step %d: from parts\n%s\nfrom the chunk\n%s", step, got, want)
		}
		if got, want := partedEnv.Metrics.StateKeys.Load(), wholeEnv.Metrics.StateKeys.Load(); got != want {
			t.Fatalf("step %d: %d rows held from parts, %d from chunks", step, got, want)
		}
	}
}
