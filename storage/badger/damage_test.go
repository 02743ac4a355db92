package badger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger/damagetest"
	"github.com/eddysql/eddy/storage/storagetest"
)

// fill writes run r's share of the test database: catalog entries, log
// entries large enough for the value log (3,000 rows) and small ones, and
// a state commit with a value for the value log too.
func fill(t *testing.T, db storage.DB, r int) {
	ctx := context.Background()
	kv := db.KV()
	must(t, kv.Put(fmt.Appendf(nil, "catalog/object/o%d", r), fmt.Appendf(nil, `{"id":%d}`, r)))
	must(t, kv.Put(fmt.Appendf(nil, "catalog/big/%d", r), bytes.Repeat([]byte{byte(r)}, 100<<10)))
	if r > 0 {
		must(t, kv.Delete(fmt.Appendf(nil, "catalog/object/o%d", r-1)))
	}
	for stream, rows := range map[uint64]int{1: 3000, 2: 10} {
		b := storagetest.EventBatch(memory.DefaultAllocator, r*rows, rows)
		_, err := db.Log().Append(stream, b)
		b.Release()
		must(t, err)
	}
	s, err := db.State("job")
	must(t, err)
	tbl, err := s.Table("agg", storage.TableOptions{})
	must(t, err)
	for i := range 50 {
		must(t, tbl.Put(fmt.Appendf(nil, "k%03d", i), fmt.Appendf(nil, "v%d.%d", r, i)))
	}
	must(t, tbl.Put([]byte("blob"), bytes.Repeat([]byte{'b', byte(r)}, 40<<10)))
	must(t, s.Commit(ctx, uint64(r+1)))
	must(t, s.Close())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dump describes everything db holds: KV entries, log entries and the
// committed state, with values hashed.
func dump(db storage.DB) (string, error) {
	ctx := context.Background()
	var b strings.Builder
	sum := func(v []byte) uint64 {
		h := fnv.New64a()
		h.Write(v)
		return h.Sum64()
	}
	err := db.KV().Scan(nil, func(k, v []byte) error {
		fmt.Fprintf(&b, "kv %s %d %x\n", k, len(v), sum(v))
		return nil
	})
	if err != nil {
		return "", err
	}
	for stream := uint64(1); stream <= 2; stream++ {
		_, err := db.Log().Read(ctx, stream, 0, math.MaxUint64, storagetest.EventSchema, memory.DefaultAllocator,
			func(seq uint64, batch arrow.RecordBatch) error {
				enc, err := storage.EncodeBatch(nil, batch)
				fmt.Fprintf(&b, "log %d/%d %d rows %x\n", stream, seq, batch.NumRows(), sum(enc))
				return err
			})
		if err != nil {
			return "", err
		}
	}
	s, err := db.State("job")
	if err != nil {
		return "", err
	}
	defer s.Close()
	epoch, err := s.Recover(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "epoch %d\n", epoch)
	tbl, err := s.Table("agg", storage.TableOptions{})
	if err != nil {
		return "", err
	}
	err = tbl.Scan(nil, func(k, v []byte) error {
		fmt.Fprintf(&b, "state %s %d %x\n", k, len(v), sum(v))
		return nil
	})
	return b.String(), err
}

// openDump opens dir and returns what it holds, or why it could not.
func openDump(dir string) (_ string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	db, err := Open(dir, Options{ValueLogGCInterval: -1})
	if err != nil {
		return "", err
	}
	got, err := dump(db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return got, err
}

// buildDir writes three runs into a new directory and returns it closed,
// and a copy taken while the third run was open (what a crash leaves).
func buildDir(t *testing.T) (clean, crashed string) {
	clean, crashed = filepath.Join(t.TempDir(), "clean"), filepath.Join(t.TempDir(), "crashed")
	for r := range 3 {
		db, err := Open(clean, Options{ValueLogGCInterval: -1})
		must(t, err)
		fill(t, db, r)
		if r == 2 {
			must(t, damagetest.CopyDir(clean, crashed))
		}
		must(t, db.Close())
	}
	return clean, crashed
}

// TestDamage damages every file of a data directory holding catalog
// entries, logs and state, in every way damagetest knows, one at a time
// on a copy, and opens the copy: each must fail with an error wrapping
// storage.ErrCorrupt that names the damaged file, having changed nothing
// in the directory, or open with exactly what the directory held. Nothing
// may panic. (exec/engine's
// TestDamagedDataDirectory does the same through the engine.)
func TestDamage(t *testing.T) {
	clean, crashed := buildDir(t)
	want, err := openDump(clean)
	must(t, err)
	if !strings.Contains(want, "log 1/2 3000 rows") || !strings.Contains(want, "epoch 3") || !strings.Contains(want, "state blob 81920") {
		t.Fatalf("the directory does not hold what was written:\n%s", want)
	}
	for _, src := range []string{clean, crashed} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			damages, err := damagetest.All(src, rand.New(rand.NewPCG(3, 4)))
			must(t, err)
			for i, d := range damages {
				dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
				must(t, damagetest.CopyDir(src, dir))
				must(t, d.Apply(dir))
				before, err := damagetest.Fingerprint(dir, "eddy.lock")
				must(t, err)
				got, err := openDump(dir)
				if after, _ := damagetest.Fingerprint(dir, "eddy.lock"); err != nil && after != before {
					t.Errorf("%s: opening changed the damaged directory", d)
				}
				switch {
				case err == nil && got != want:
					t.Errorf("%s: opened with different contents:\n%s", d, got)
				case err == nil:
				case !errors.Is(err, storage.ErrCorrupt):
					t.Errorf("%s: %v (not storage.ErrCorrupt)", d, err)
				case !strings.Contains(err.Error(), d.File) && !(d.Kind == "deleted" && strings.Contains(err.Error(), "*"+filepath.Ext(d.File))):
					t.Errorf("%s: the error does not name the file: %v", d, err)
				}
			}
		})
	}
}

// TestCrashBeforeTheNewestLogIsSized: a process killed between creating a
// write-ahead log and sizing it leaves the newest one empty, which Badger
// refuses to open. It held no write: the directory opens, with what it
// held, and the empty log is gone.
func TestCrashBeforeTheNewestLogIsSized(t *testing.T) {
	_, crashed := buildDir(t)
	want, err := openDump(crashed)
	must(t, err)
	l, err := listDir(crashed)
	must(t, err)
	newest := 0
	for id := range l.mems {
		newest = max(newest, id)
	}
	dir := filepath.Join(t.TempDir(), "killed")
	must(t, damagetest.CopyDir(crashed, dir))
	empty := filepath.Join(dir, fmt.Sprintf("%05d.mem", newest+1))
	must(t, os.WriteFile(empty, nil, 0o644))
	got, err := openDump(dir)
	if err != nil {
		t.Fatalf("opening after the crash: %v", err)
	}
	if got != want {
		t.Fatalf("opened with different contents:\n%s\nwant\n%s", got, want)
	}
}
