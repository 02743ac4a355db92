package engine

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger"
	"github.com/eddysql/eddy/storage/badger/damagetest"
)

// damageOnce damages the first block of job's checkpoint runs in dir with
// damage, and fails t if it found none.
func damageOnce(t *testing.T, dir, job string, damage func(stored []byte) []byte) {
	t.Helper()
	done := false
	n, err := damagetest.DamageState(dir, job, func(key, stored []byte) []byte {
		if done {
			return nil
		}
		done = true
		return damage(stored)
	})
	if err != nil || n != 1 {
		t.Fatalf("damaging the state of %s: %d blocks, %v", job, n, err)
	}
}

// garbleEntry replaces, through the storage API, the value of the first
// operator state entry of job with bytes that pass the store's checksum
// but decode as nothing, in a new epoch.
func garbleEntry(t *testing.T, dir, job string) {
	t.Helper()
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
	if err != nil {
		t.Fatal(err)
	}
	var tbl storage.StateTable
	var key []byte
	// Operators' tables are named by their place in the plan (exec/build):
	// the root, its inputs, theirs, and so on; the view's rows last.
	places := []string{"r"}
	for i := 0; i < len(places) && len(places) < 64; i++ {
		places = append(places, places[i]+".0", places[i]+".1")
	}
	for _, place := range append(places, "sink") {
		if tbl, err = st.Table("state/"+place, storage.TableOptions{}); err != nil {
			t.Fatal(err)
		}
		err = tbl.Scan(nil, func(k, _ []byte) error {
			key = bytes.Clone(k)
			return errFound
		})
		if err != nil && !errors.Is(err, errFound) {
			t.Fatal(err)
		}
		if key != nil {
			break
		}
	}
	if key == nil {
		t.Fatalf("no operator state entry in %s", job)
	}
	if err := tbl.Put(key, []byte{0xff, 0xfe, 0x01}); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(context.Background(), epoch+1); err != nil {
		t.Fatal(err)
	}
}

var errFound = errors.New("found")

// TestDamagedCheckpoint: a view whose only checkpoint is damaged in a
// real data directory — a byte flipped in a stored block, a block cut
// short (both failing the store's checksum) — fails alone when the engine
// restarts, with an error naming the checkpoint and saying how to rebuild
// the view, and is listed as failed; the engine opens, the other view
// resumes and goes on, and DROP and CREATE rebuild the damaged view from
// its input.
func TestDamagedCheckpoint(t *testing.T) {
	damages := map[string]func(t *testing.T, dir, job string){
		"flipped": func(t *testing.T, dir, job string) {
			damageOnce(t, dir, job, func(v []byte) []byte { v = bytes.Clone(v); v[0] ^= 0x10; return v })
		},
		"truncated": func(t *testing.T, dir, job string) {
			damageOnce(t, dir, job, func(v []byte) []byte { return bytes.Clone(v[:len(v)/2]) })
		},
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
			if !slices.ContainsFunc(res.Notices, func(n string) bool {
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

// damageNewestRun flips a byte in block 0 of the newest run of job's
// checkpoint in dir: the run only the last checkpoint names.
func damageNewestRun(t *testing.T, dir, job string) {
	t.Helper()
	var newest []byte
	if _, err := damagetest.DamageState(dir, job, func(key, _ []byte) []byte {
		if newest == nil || bytes.Compare(key[:len(key)-4], newest[:len(newest)-4]) > 0 {
			newest = bytes.Clone(key)
		}
		return nil
	}); err != nil || newest == nil {
		t.Fatalf("finding the runs of %s: %v", job, err)
	}
	n, err := damagetest.DamageState(dir, job, func(key, stored []byte) []byte {
		if !bytes.Equal(key[:len(key)-4], newest[:len(newest)-4]) || !bytes.Equal(key[len(key)-4:], []byte{0, 0, 0, 0}) {
			return nil
		}
		stored = bytes.Clone(stored)
		stored[len(stored)/2] ^= 0x04
		return stored
	})
	if err != nil || n != 1 {
		t.Fatalf("damaging the newest run of %s: %d blocks, %v", job, n, err)
	}
}

// TestDamagedCheckpointFallsBack: a view whose last checkpoint is damaged
// — a byte flipped in the run only it names, or an entry that passes the
// checksum but does not decode — falls back on its previous checkpoint
// when the engine restarts, with a notice naming both, and reads its
// input on from that checkpoint's positions: it holds the whole answer,
// is not failed, and resumes normally after another restart.
func TestDamagedCheckpointFallsBack(t *testing.T) {
	damages := map[string]func(t *testing.T, dir, job string){
		"flipped newest run": damageNewestRun,
		"garbled":            garbleEntry,
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			cfg := Config{DataDir: dir, Parallelism: 2, CheckpointInterval: time.Hour}
			e := openEngine(t, cfg)
			run(t, e.NewSession(SessionOptions{}), `CREATE STREAM s (k INT, v INT);
				CREATE MATERIALIZED VIEW a AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
				INSERT INTO s VALUES (1, 10), (2, 20), (1, 5);
				FLUSH;`)
			obj, ok := e.Catalog().Get("a")
			if !ok {
				t.Fatal("no view a")
			}
			if err := e.Close(); err != nil { // checkpoint 1
				t.Fatal(err)
			}
			e = openEngine(t, cfg)
			run(t, e.NewSession(SessionOptions{}), "INSERT INTO s VALUES (3, 1), (1, 1); FLUSH;")
			if err := e.Close(); err != nil { // checkpoint 2
				t.Fatal(err)
			}
			damage(t, dir, stateJob(obj.ID))

			e = openEngine(t, cfg)
			s := e.NewSession(SessionOptions{})
			// Damage in the view's own rows is found as the engine opens;
			// in an operator's state, while the view answers from its rows
			// (background.go): its query then fails and recovers, falling
			// back all the same.
			fellBack := func(n string) bool {
				return strings.Contains(n, "materialized view a falls back on its previous checkpoint ") &&
					strings.Contains(n, "of materialized view a is damaged: ")
			}
			// While it recovers, the view is not running.
			res, err := s.Execute(context.Background(), mustParse(t, "SELECT * FROM a;"))
			var notices []string
			if err == nil {
				notices = res.Notices
			}
			if err != nil || !slices.ContainsFunc(notices, fellBack) {
				waitRecovered(t, e, 1)
				notices = append(notices, run(t, s, "FLUSH;").Notices...)
				res = run(t, s, "SELECT * FROM a;")
				notices = append(notices, res.Notices...)
			}
			if got := sorted(text(res)); got != "1 | 3\n2 | 1\n3 | 1\n" {
				t.Errorf("a after falling back holds\n%s", got)
			}
			if !slices.ContainsFunc(notices, fellBack) {
				t.Errorf("no notice says a fell back on its previous checkpoint: %q", notices)
			}
			if st := e.status("a"); st.failed() {
				t.Errorf("a's status: %s", st)
			}
			run(t, s, "INSERT INTO s VALUES (2, 2); FLUSH;")
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e = openEngine(t, cfg)
			defer func() { e.Close() }()
			res = run(t, e.NewSession(SessionOptions{}), "SELECT * FROM a;")
			if got := sorted(text(res)); got != "1 | 3\n2 | 2\n3 | 1\n" {
				t.Errorf("a after another restart holds\n%s", got)
			}
			if slices.ContainsFunc(res.Notices, func(n string) bool { return strings.Contains(n, "falls back") }) {
				t.Errorf("a fell back again: %q", res.Notices)
			}
		})
	}
}
