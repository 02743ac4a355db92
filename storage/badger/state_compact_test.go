package badger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// TestCompactionBoundsRuns commits many epochs that each rewrite or
// delete a few of the keys and checks, after each, that the state reads
// as a map applying them would, that the manifest names at most maxRuns
// runs, that the stored bytes stay within twice the first run's plus the
// newer runs' (the compaction rule), and that no run is stored that
// neither manifest names.
func TestCompactionBoundsRuns(t *testing.T) {
	ctx := context.Background()
	db := openDir(t, t.TempDir())
	defer db.Close()
	s, err := db.State("job")
	must(t, err)
	defer s.Close()
	tbl, err := s.Table("t", storage.TableOptions{})
	must(t, err)
	r := rand.New(rand.NewPCG(1, 1))
	model := map[string]string{}
	compactions := 0
	lastRuns := 0
	for epoch := uint64(1); epoch <= 60; epoch++ {
		n := 50
		if epoch == 1 {
			n = 2000
		}
		for range n {
			k := fmt.Sprintf("key%05d", r.IntN(2000))
			if r.IntN(5) == 0 {
				must(t, tbl.Delete([]byte(k)))
				delete(model, k)
				continue
			}
			v := fmt.Sprintf("v%d-%d", epoch, r.IntN(1000))
			must(t, tbl.Put([]byte(k), []byte(v)))
			model[k] = v
		}
		must(t, s.Commit(ctx, epoch))
		got := map[string]string{}
		must(t, tbl.Scan(nil, func(k, v []byte) error { got[string(k)] = string(v); return nil }))
		if len(got) != len(model) {
			t.Fatalf("epoch %d: %d keys, want %d", epoch, len(got), len(model))
		}
		for k, v := range model {
			if got[k] != v {
				t.Fatalf("epoch %d: %s = %q, want %q", epoch, k, got[k], v)
			}
		}
		b := s.(*statecore.Store).Backend().(*stateBackend)
		b.mu.Lock()
		man, prev := b.man, b.prev
		b.mu.Unlock()
		if len(man.runs) > maxRuns {
			t.Fatalf("epoch %d: %d runs", epoch, len(man.runs))
		}
		if len(man.runs) < lastRuns {
			compactions++
		}
		lastRuns = len(man.runs)
		if rest := man.bytes() - man.runs[0].bytes; rest >= man.runs[0].bytes {
			t.Fatalf("epoch %d: the newer runs hold %d bytes over the first's %d", epoch, rest, man.runs[0].bytes)
		}
		if stored := len(rawRunKeys(t, db, "job", runIndex)); stored > len(man.runs)+len(prev.runs) {
			t.Fatalf("epoch %d: %d runs stored, the manifests name %d and %d", epoch, stored, len(man.runs), len(prev.runs))
		}
	}
	if compactions == 0 {
		t.Fatal("no compaction in 60 epochs")
	}
}
