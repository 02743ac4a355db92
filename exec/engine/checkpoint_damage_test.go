package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger"
	"github.com/eddysql/eddy/storage/badger/damagetest"
)

// operatorTable returns the name of the operator state table whose
// entries key, a state key within a job, belongs to ("" for the plan and
// the sources' positions).
func operatorTable(key []byte) string {
	for si := range 8 {
		for op := range 8 {
			name := fmt.Sprintf("stage%d/op%d", si, op)
			if bytes.HasPrefix(key, storage.AppendString(nil, name)) {
				return name
			}
		}
	}
	return ""
}

// damageOnce damages the first operator state entry of job in dir with
// damage, and fails t if it found none.
func damageOnce(t *testing.T, dir, job string, damage func(stored []byte) []byte) {
	t.Helper()
	done := false
	n, err := damagetest.DamageState(dir, job, func(key, stored []byte) []byte {
		if done || operatorTable(key) == "" {
			return nil
		}
		done = true
		return damage(stored)
	})
	if err != nil || n != 1 {
		t.Fatalf("damaging the state of %s: %d entries, %v", job, n, err)
	}
}

// garbleEntry replaces, through the storage API, the value of the first
// operator state entry of job with bytes that pass the store's checksum
// but decode as nothing, in a new epoch.
func garbleEntry(t *testing.T, dir, job string) {
	t.Helper()
	var table string
	var key []byte
	if _, err := damagetest.DamageState(dir, job, func(k, _ []byte) []byte {
		if key == nil && operatorTable(k) != "" {
			table = operatorTable(k)
			key = bytes.Clone(k[len(storage.AppendString(nil, table)):])
		}
		return nil
	}); err != nil || key == nil {
		t.Fatalf("finding an entry of %s: %v", job, err)
	}
	db, err := badger.Open(dir, badger.Options{ValueLogGCInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.State(job)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	epoch, err := st.Recover(context.Background())
	if err == nil {
		var tbl storage.StateTable
		if tbl, err = st.Table(table, storage.TableOptions{}); err == nil {
			err = tbl.Put(key, []byte{0xff, 0xfe, 0x01})
		}
	}
	if err == nil {
		err = st.Commit(context.Background(), epoch+1)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestDamagedCheckpoint: a view whose checkpoint state is damaged in a
// real data directory — a byte flipped in a stored entry, an entry cut
// short (both failing the store's checksum), an entry that passes it but
// does not decode — fails alone when the engine restarts, with an error
// naming the checkpoint and saying how to rebuild the view, and is listed
// as failed; the engine opens, the other view resumes and goes on, and
// DROP and CREATE rebuild the damaged view from its input.
func TestDamagedCheckpoint(t *testing.T) {
	damages := map[string]func(t *testing.T, dir, job string){
		"flipped": func(t *testing.T, dir, job string) {
			damageOnce(t, dir, job, func(v []byte) []byte { v = bytes.Clone(v); v[0] ^= 0x10; return v })
		},
		"truncated": func(t *testing.T, dir, job string) {
			damageOnce(t, dir, job, func(v []byte) []byte { return bytes.Clone(v[:len(v)/2]) })
		},
		"garbled": garbleEntry,
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			cfg := Config{DataDir: dir, Parallelism: 2, CheckpointInterval: time.Hour}
			e := openEngine(t, cfg)
			run(t, e.NewSession(SessionOptions{}), `CREATE STREAM s (k INT, v INT);
				CREATE MATERIALIZED VIEW a AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
				CREATE MATERIALIZED VIEW b AS SELECT k, SUM(v) AS total FROM s GROUP BY k;
				INSERT INTO s VALUES (1, 10), (2, 20), (1, 5);
				FLUSH;`)
			obj, ok := e.Catalog().Get("a")
			if !ok {
				t.Fatal("no view a")
			}
			if err := e.Close(); err != nil { // takes a last checkpoint of both
				t.Fatal(err)
			}
			damage(t, dir, stateJob(obj.ID))

			e = openEngine(t, cfg)
			defer func() { e.Close() }()
			s := e.NewSession(SessionOptions{})
			res := run(t, s, "SELECT * FROM b;")
			if got := sorted(text(res)); got != "1 | 15\n2 | 20\n" {
				t.Errorf("b after the restart holds\n%s", got)
			}
			wantErr := "of materialized view a is damaged: "
			hint := "DROP MATERIALIZED VIEW a and CREATE it again to rebuild it from its inputs"
			if !slices.ContainsFunc(res.Notices, func(n string) bool {
				return strings.Contains(n, "materialized view a could not resume: checkpoint ") && strings.Contains(n, wantErr) && strings.Contains(n, hint)
			}) {
				t.Errorf("no notice says a's checkpoint is damaged: %q", res.Notices)
			}
			if name != "garbled" && !slices.ContainsFunc(res.Notices, func(n string) bool {
				return strings.Contains(n, "fails its checksum") || strings.Contains(n, "shorter than its checksum")
			}) {
				t.Errorf("the notice does not say what is damaged: %q", res.Notices)
			}
			if st := e.status("a"); !st.failed() || !strings.Contains(st.String(), wantErr) || !strings.Contains(st.String(), hint) {
				t.Errorf("a's status: %s", st)
			}
			if _, err := s.Execute(context.Background(), mustParse(t, "SELECT * FROM a;")); err == nil || !strings.Contains(err.Error(), "could not resume") {
				t.Errorf("reading the damaged view: %v", err)
			}
			if _, err := s.Execute(context.Background(), mustParse(t, "FLUSH;")); !errors.As(err, new(*QueriesFailedError)) {
				t.Errorf("FLUSH with a failed view: %v", err)
			}

			// b goes on; a is rebuilt by DROP and CREATE, from the log.
			run(t, s, `INSERT INTO s VALUES (2, 1), (3, 7);
				DROP MATERIALIZED VIEW a;
				CREATE MATERIALIZED VIEW a AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
				FLUSH;`)
			if got := sorted(text(run(t, s, "SELECT * FROM a;"))); got != "1 | 2\n2 | 2\n3 | 1\n" {
				t.Errorf("a rebuilt holds\n%s", got)
			}
			if got := sorted(text(run(t, s, "SELECT * FROM b;"))); got != "1 | 15\n2 | 21\n3 | 7\n" {
				t.Errorf("b holds\n%s", got)
			}
			// And both resume after another restart.
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e = openEngine(t, cfg)
			s = e.NewSession(SessionOptions{})
			if got := sorted(text(run(t, s, "SELECT * FROM a;"))); got != "1 | 2\n2 | 2\n3 | 1\n" {
				t.Errorf("a after another restart holds\n%s", got)
			}
		})
	}
}
