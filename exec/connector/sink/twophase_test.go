package sink

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// twoPhaseNames and twoPhaseTypes are the rows of the two-phase tests: a
// partition column and a row number.
var (
	twoPhaseNames = []string{"p", "n"}
	twoPhaseTypes = []types.T{types.VarcharT, types.BigIntT}
)

// newTwoPhase returns a two-phase file sink of opts (format CSV with a
// header) opened in a job that checkpoints, resuming if resuming.
func newTwoPhase(t *testing.T, cfg Config, resuming bool) *TwoPhase {
	t.Helper()
	cfg.TwoPhase = true
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tp := op.(*TwoPhase)
	env := exec.NewTestEnv(newAlloc(t))
	env.Checkpointing, env.Resuming = true, resuming
	if err := tp.Open(context.Background(), env); err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tp
}

// twoPhaseChunks returns n chunks of rows numbered on, each in one of
// three partitions.
func twoPhaseChunks(t *testing.T, rng *rand.Rand, n int) []exec.Chunk {
	var chunks []exec.Chunk
	row := 0
	for range n {
		var rows [][]types.Datum
		for range 1 + rng.IntN(4) {
			rows = append(rows, []types.Datum{types.StringDatum(fmt.Sprint("p", rng.IntN(3))), types.IntDatum(int64(row))})
			row++
		}
		chunks = append(chunks, makeChunk(t, newAlloc(t), twoPhaseNames, twoPhaseTypes, rows, nil))
	}
	return chunks
}

// files returns the sink's output under dir: each file's path and
// content, the hidden parts left out.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = readFile(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTwoPhaseSinkResumesExactlyOnce runs a two-phase file sink (one
// file, and partitioned) through checkpoints, some committed, and drops
// it at a random point as a crash would, possibly between an epoch's
// commit and its publication. Until published, nothing of an epoch shows. Resumed from the last committed
// checkpoint and fed the rows after it, the sink leaves the files an
// uninterrupted run writes, byte for byte.
func TestTwoPhaseSinkResumesExactlyOnce(t *testing.T) {
	for _, partitioned := range []bool{false, true} {
		for seed := range uint64(12) {
			t.Run(fmt.Sprintf("partitioned=%v/seed=%d", partitioned, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 9))
				chunks := twoPhaseChunks(t, rng, 5+rng.IntN(20))
				opts := map[string]string{"connector": "file", "path": "out.csv", "header": "true"}
				if partitioned {
					opts["path"], opts["partition_by"], opts["format"] = "out", "p", "csv"
				}
				cfg := optionsConfig(t, opts, twoPhaseNames, twoPhaseTypes)
				cfg.AppendOnly = true
				root := filepath.Dir(resolved(t, cfg))

				// The uninterrupted run, written elsewhere.
				want := uninterrupted(t, cfg, chunks)

				// The crashed run: a barrier after random chunks, its
				// epoch committed (and published) or not.
				sink := newTwoPhase(t, cfg, false)
				state, committed, resumeAt := exectest.NewState(), exectest.NewState(), 0
				published := files(t, root)
				crash := rng.IntN(len(chunks) + 1)
				var epoch uint64
				for i, c := range chunks[:crash] {
					if err := sink.Process(context.Background(), 0, c, nil); err != nil {
						t.Fatal(err)
					}
					if rng.IntN(3) > 0 {
						continue
					}
					epoch++
					if err := sink.OnControl(context.Background(), exec.Control{Kind: exec.Barrier, Epoch: epoch}, nil); err != nil {
						t.Fatal(err)
					}
					state.Snapshot(t, sink, epoch)
					if got := files(t, root); !sameFiles(got, published) {
						t.Fatalf("a snapshot published: %v, was %v", got, published)
					}
					if rng.IntN(4) == 0 {
						continue // the epoch did not commit
					}
					committed, resumeAt = state.Clone(), i+1
					if rng.IntN(3) > 0 { // else the crash comes before the sink publishes
						if err := sink.Commit(context.Background(), epoch); err != nil {
							t.Fatal(err)
						}
						published = files(t, root)
					}
				}
				if err := sink.Close(); err != nil {
					t.Fatal(err)
				}
				// Resume from the last committed checkpoint.
				sink = newTwoPhase(t, cfg, true)
				if err := sink.Restore(context.Background(), committed, exec.KeyGroupsOf(0, 1)); err != nil {
					t.Fatalf("Restore: %v", err)
				}
				for _, c := range chunks[resumeAt:] {
					if err := sink.Process(context.Background(), 0, c, nil); err != nil {
						t.Fatal(err)
					}
				}
				if err := sink.OnControl(context.Background(), exec.Control{Kind: exec.EndOfInput}, nil); err != nil {
					t.Fatal(err)
				}
				if err := sink.Close(); err != nil {
					t.Fatal(err)
				}
				got := files(t, root)
				if !sameFiles(got, want) {
					t.Fatalf("resumed output\n%v\nuninterrupted\n%v", got, want)
				}
				if hidden := hiddenFiles(t, root); len(hidden) > 0 {
					t.Fatalf("parts left behind: %v", hidden)
				}
			})
		}
	}
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// uninterrupted returns the files a two-phase sink of cfg, moved to a
// directory of its own, writes for chunks without a crash.
func uninterrupted(t *testing.T, cfg Config, chunks []exec.Chunk) map[string]string {
	t.Helper()
	other := optionsConfig(t, map[string]string{"connector": "file", "path": filepath.Base(cfg.Path), "header": "true",
		"format": "csv"}, cfg.Names, cfg.Types)
	other.PartitionBy, other.AppendOnly = cfg.PartitionBy, true
	sink := newTwoPhase(t, other, false)
	for i, c := range chunks {
		if err := sink.Process(context.Background(), 0, c, nil); err != nil {
			t.Fatal(err)
		}
		if i%3 == 1 {
			st := exectest.NewState()
			st.Snapshot(t, sink, uint64(i))
			if err := sink.Commit(context.Background(), uint64(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sink.OnControl(context.Background(), exec.Control{Kind: exec.EndOfInput}, nil); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return files(t, filepath.Dir(resolved(t, other)))
}

// hiddenFiles lists the parts under dir.
func hiddenFiles(t *testing.T, dir string) []string {
	var hidden []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			hidden = append(hidden, path)
		}
		return err
	})
	slices.Sort(hidden)
	return hidden
}

// TestTwoPhaseSinkRestoreRefusesAChangedFile: a file cut shorter than its
// checkpoint recorded (changed outside eddy) fails the restore with the
// file named, and damaged entries fail it too.
func TestTwoPhaseSinkRestoreRefusesAChangedFile(t *testing.T) {
	cfg := optionsConfig(t, map[string]string{"connector": "file", "path": "out.csv"}, twoPhaseNames, twoPhaseTypes)
	rng := rand.New(rand.NewPCG(1, 2))
	sink := newTwoPhase(t, cfg, false)
	for _, c := range twoPhaseChunks(t, rng, 3) {
		if err := sink.Process(context.Background(), 0, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	state := exectest.NewState()
	state.Snapshot(t, sink, 1)
	if err := sink.Commit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	sink.Close()
	path := resolved(t, cfg)
	if err := os.Truncate(path, 3); err != nil {
		t.Fatal(err)
	}
	sink = newTwoPhase(t, cfg, true)
	err := sink.Restore(context.Background(), state, exec.KeyGroupsOf(0, 1))
	if !errors.Is(err, errChanged) || !strings.Contains(err.Error(), path) {
		t.Fatalf("restoring over a cut file: %v", err)
	}
	sink.Close()
	damaged := state.Clone()
	damaged.Damage([]byte{0xff})
	sink = newTwoPhase(t, cfg, true)
	if err := sink.Restore(context.Background(), damaged, exec.KeyGroupsOf(0, 1)); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("restoring damaged entries: %v", err)
	}
	sink.Close()
}

// TestTwoPhaseSinkWithoutCheckpointsWritesAsItGoes: in a job that takes
// no checkpoints, a TwoPhase sink writes its file directly, as Sink does.
func TestTwoPhaseSinkWithoutCheckpointsWritesAsItGoes(t *testing.T) {
	cfg := optionsConfig(t, map[string]string{"connector": "file", "path": "out.csv"}, twoPhaseNames, twoPhaseTypes)
	cfg.TwoPhase, cfg.AppendOnly = true, true
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tp := op.(*TwoPhase)
	if err := tp.Open(context.Background(), exec.NewTestEnv(newAlloc(t))); err != nil {
		t.Fatal(err)
	}
	c := makeChunk(t, newAlloc(t), twoPhaseNames, twoPhaseTypes, [][]types.Datum{{types.StringDatum("a"), types.IntDatum(1)}}, nil)
	if err := tp.Process(context.Background(), 0, c, nil); err != nil {
		t.Fatal(err)
	}
	if err := tp.OnControl(context.Background(), exec.Control{Kind: exec.Flush}, nil); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, resolved(t, cfg)); got != "a,1\n" {
		t.Fatalf("file holds %q", got)
	}
	tp.Close()
}
