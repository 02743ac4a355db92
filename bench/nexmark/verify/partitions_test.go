package verify

import (
	"context"
	"encoding/csv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/exec/engine/difftest"
	"github.com/eddysql/eddy/sql"
)

// q10Columns are q10's columns: the files hold them in this order.
var q10Columns = []engine.Column{
	{Name: "auction", Type: types.BigIntT}, {Name: "bidder", Type: types.BigIntT}, {Name: "price", Type: types.BigIntT},
	{Name: "date_time", Type: types.TimestampT(3)}, {Name: "extra", Type: types.VarcharT},
	{Name: "dt", Type: types.VarcharT}, {Name: "hm", Type: types.VarcharT},
}

// checkPartitions runs q10 as written, a file sink partitioned by dt and
// hm, and checks what it wrote: every file is <dt=...>/<hm=...>/part-0.csv
// (':' escaped as %3A) and holds only rows of its partition, and all the
// files together hold SQLite's result.
func checkPartitions(ctx context.Context, t *testing.T, sink *sql.CreateSink, want *difftest.SQLiteResult) {
	dir := t.TempDir()
	s, err := newSession(ctx, dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := s.exec(ctx, sink.Source().Text()+";\nFLUSH;"); err != nil {
		t.Fatalf("q10's sink: %v", err)
	}
	got := &difftest.Result{View: "q10 files", Columns: q10Columns}
	root := filepath.Join(dir, "q10")
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if len(rec) != len(q10Columns) {
				t.Fatalf("%s: a row of %d fields", rel, len(rec))
			}
			dt, hm := rec[5], rec[6]
			if wantRel := filepath.Join("dt="+dt, "hm="+strings.ReplaceAll(hm, ":", "%3A"), "part-0.csv"); rel != wantRel {
				t.Fatalf("the row %v is in %s, want %s", rec, rel, wantRel)
			}
			row := make([]types.Datum, len(rec))
			for j, field := range rec {
				switch q10Columns[j].Type.Kind {
				case types.BigInt:
					n, err := strconv.ParseInt(field, 10, 64)
					if err != nil {
						t.Fatalf("%s: %v", rel, err)
					}
					row[j] = types.IntDatum(n)
				case types.Timestamp:
					ms, err := types.ParseTimestamp(field)
					if err != nil {
						t.Fatalf("%s: %v", rel, err)
					}
					row[j] = types.IntDatum(ms)
				default:
					row[j] = types.StringDatum(field)
				}
			}
			got.Rows = append(got.Rows, row)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("q10's sink wrote %d rows into %d partition files", len(got.Rows), files)
	diff, err := difftest.Compare(got, want)
	if err != nil {
		t.Fatal(err)
	}
	if !diff.Empty() {
		t.Errorf("q10's files hold %d rows, SQLite %d\n%s", len(got.Rows), len(want.Values), diff)
	}
}
