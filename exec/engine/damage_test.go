package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector/fileroot"
	"github.com/eddysql/eddy/sql"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger/damagetest"
	"github.com/eddysql/eddy/storage/mem"
)

// bigInsert inserts n rows into s in one statement: about 26 bytes a row
// logged, so 5,000 rows make a log entry past Badger's value threshold
// (64 KiB), which goes to a value log file.
func bigInsert(lo, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO s VALUES ")
	for i := lo; i < lo+n; i++ {
		if i > lo {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, 'note %d')", i, i%97)
	}
	return b.String() + ";"
}

// buildDamageDir builds a data directory through the engine over three
// runs, so that it holds several table files (each close flushes the
// memtable) and value log files (each open starts one), and returns a
// copy taken while the third run was still open (what a crash then
// leaves: Badger's LOCK, a memtable write-ahead log, a preallocated value
// log) and the directory after the third run closed.
func buildDamageDir(t *testing.T) (clean, crashed string) {
	ctx := context.Background()
	clean, crashed = filepath.Join(t.TempDir(), "clean"), filepath.Join(t.TempDir(), "crashed")
	scripts := []string{
		`CREATE STREAM s (id BIGINT NOT NULL, note VARCHAR);
		 CREATE TABLE t (k BIGINT PRIMARY KEY, v VARCHAR);
		 CREATE MATERIALIZED VIEW v AS SELECT note, count(*) AS n, sum(id) AS total FROM s GROUP BY note;
		 CREATE MATERIALIZED VIEW w AS SELECT k, v FROM t WHERE k > 1;` +
			bigInsert(0, 5000) +
			`INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');
		 ANALYZE s;`,
		bigInsert(5000, 5000) + `INSERT INTO s VALUES (-1, 'small'); INSERT INTO t VALUES (2, 'TWO');`,
		bigInsert(10000, 5000) + `INSERT INTO s VALUES (-2, 'last'); INSERT INTO t VALUES (4, 'four');`,
	}
	for i, script := range scripts {
		e, err := Open(ctx, Config{DataDir: clean, Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		run(t, e.NewSession(SessionOptions{}), script)
		if i == len(scripts)-1 {
			if err := damagetest.CopyDir(clean, crashed); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return clean, crashed
}

// contents describes everything a data directory holds as the engine
// sees it: every catalog object and the rows of every stream, table and
// view, sorted.
func contents(ctx context.Context, e *Engine) (string, error) {
	var b strings.Builder
	s := e.NewSession(SessionOptions{})
	for _, o := range e.Catalog().InCreationOrder() {
		j, err := json.Marshal(o)
		if err != nil {
			return "", err
		}
		b.Write(j)
		b.WriteString("\n")
		if st, ok := e.Catalog().Stats(o.Name); ok {
			fmt.Fprintf(&b, "stats: %d rows\n", st.Rows)
		}
		if o.Kind == catalog.Sink {
			continue
		}
		stmt, err := sql.ParseOne("SELECT * FROM "+o.Name, sql.Pos{Line: 1, Col: 1})
		if err != nil {
			return "", err
		}
		res, err := s.Execute(ctx, stmt)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", o.Name, err)
		}
		rows := make([]string, len(res.Rows))
		for i, row := range res.Rows {
			vals := make([]string, len(row))
			for k, d := range row {
				vals[k] = types.Format(d, res.Columns[k].Type)
			}
			rows[i] = strings.Join(vals, "|")
		}
		slices.Sort(rows)
		fmt.Fprintf(&b, "%d rows: %s\n", len(rows), strings.Join(rows, ";"))
	}
	return b.String(), nil
}

// openContents opens the engine on dir as the command line does and
// returns its contents, or the error opening or reading it failed with.
func openContents(dir string) (_ string, err error) {
	ctx := context.Background()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	e, err := Open(ctx, Config{DataDir: dir, Parallelism: 2})
	if err != nil {
		return "", err
	}
	got, err := contents(ctx, e)
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	return got, err
}

// TestDamagedDataDirectory damages every file of a real data directory in
// every way damagetest knows, one at a time on a copy, and opens the copy
// as the command line does: each must either fail with an error that
// wraps storage.ErrCorrupt and names the damaged file (a deleted file of
// which there may be several, such as a write-ahead log, by its kind:
// *.mem), having changed nothing in the directory, or open with exactly
// the original contents (damage to a file
// whose loss is harmless, such as the value log's garbage statistics).
// Nothing may panic. It does so for the directory closed cleanly and for
// a copy taken while it was open, as a crash leaves it.
func TestDamagedDataDirectory(t *testing.T) {
	clean, crashed := buildDamageDir(t)
	want, err := openContents(clean)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want, "15002 rows") || !strings.Contains(want, "stats: 5000 rows") {
		t.Fatalf("the directory does not hold the rows written:\n%.2000s", want)
	}
	for _, src := range []string{clean, crashed} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			copyDir := func(name string) string {
				dir := filepath.Join(t.TempDir(), name)
				if err := damagetest.CopyDir(src, dir); err != nil {
					t.Fatal(err)
				}
				return dir
			}
			if got, err := openContents(copyDir("intact")); err != nil || got != want {
				t.Fatalf("the undamaged copy: %v\n%.2000s", err, got)
			}
			damages, err := damagetest.All(src, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range damages {
				dir := copyDir(fmt.Sprint(i))
				if err := d.Apply(dir); err != nil {
					t.Fatal(err)
				}
				before, err := damagetest.Fingerprint(dir, "eddy.lock")
				if err != nil {
					t.Fatal(err)
				}
				got, err := openContents(dir)
				if after, _ := damagetest.Fingerprint(dir, "eddy.lock"); err != nil && after != before {
					t.Errorf("%s: opening changed the damaged directory", d)
				}
				switch {
				case err == nil && got == want:
					t.Logf("%s: harmless", d)
				case err == nil:
					t.Errorf("%s: opened with different contents:\n%.2000s", d, got)
				case !errors.Is(err, storage.ErrCorrupt):
					t.Errorf("%s: %v (not storage.ErrCorrupt)", d, err)
				case !strings.Contains(err.Error(), d.File) && !(d.Kind == "deleted" && strings.Contains(err.Error(), "*"+filepath.Ext(d.File))):
					t.Errorf("%s: the error does not name the file: %v", d, err)
				default:
					t.Logf("%s: %v", d, err)
				}
			}
		})
	}
}

// corruptLogDB is a storage.DB whose log entries all fail to read as
// damaged ones do: damage the storage's own checks cannot see.
type corruptLogDB struct{ storage.DB }

func (d corruptLogDB) Log() storage.Log { return corruptLog{d.DB.Log()} }

type corruptLog struct{ storage.Log }

func (corruptLog) Read(_ context.Context, stream, from, _ uint64, _ *arrow.Schema, _ memory.Allocator,
	_ func(uint64, arrow.RecordBatch) error) (uint64, error) {
	return from, &storage.CorruptEntryError{Stream: stream, Seq: from, Err: errors.New("checksum mismatch")}
}

// TestOpenFailsOnDamagedLog checks that a view failing on a damaged log
// entry while it catches up keeps the engine from opening, with an error
// naming the view, the stream and the entry, rather than opening with the
// view broken.
func TestOpenFailsOnDamagedLog(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Parallelism: 2, Alloc: memory.DefaultAllocator, FileRoot: t.TempDir()}
	db := mem.New()
	e, err := openOn(ctx, cfg, testRoot(t, cfg), db)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e.NewSession(SessionOptions{}), `CREATE STREAM s (a BIGINT);
		INSERT INTO s VALUES (1), (2);
		CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM s;`)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := db.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	_, err = openOn(ctx, cfg, testRoot(t, cfg), corruptLogDB{db2})
	if !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Open over a damaged log = %v, want storage.ErrCorrupt", err)
	}
	for _, want := range []string{"materialized view v failed", "reading the log of stream s", "stream 1 entry 0 is unreadable"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// TestOpenNamesDamagedCatalogEntry checks that a damaged catalog entry,
// which the catalog reports without a file, is reported in the data
// directory.
func TestOpenNamesDamagedCatalogEntry(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Parallelism: 2, Alloc: memory.DefaultAllocator, FileRoot: t.TempDir(), DataDir: "/data/eddy"}
	db := mem.New()
	if err := db.KV().Put([]byte("catalog/object/s"), []byte{1, 0, 0, 0, 0, '{', '}'}); err != nil {
		t.Fatal(err)
	}
	_, err := openOn(ctx, cfg, testRoot(t, cfg), db)
	var ce *storage.CorruptionError
	if !errors.As(err, &ce) || ce.Path != "/data/eddy" || !strings.Contains(err.Error(), `the catalog entry "catalog/object/s": checksum mismatch`) {
		t.Fatalf("Open over a damaged catalog entry = %v", err)
	}
}

// testRoot returns the file root of cfg, as Open makes it.
func testRoot(t *testing.T, cfg Config) fileroot.Root {
	t.Helper()
	root, err := fileroot.New(cfg.FileRoot, cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}
