package engine

import (
	"strings"
	"sync"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// TestDMLRowsAffected checks the counts UPDATE and DELETE report: the rows
// deleted, and the rows an UPDATE changed (MySQL's rows affected: a row
// set to the values it has is matched but not counted).
func TestDMLRowsAffected(t *testing.T) {
	s := newSession(t, Config{DataDir: t.TempDir(), Parallelism: 1})
	run(t, s, `CREATE TABLE t (id BIGINT, v BIGINT, PRIMARY KEY (id));
		INSERT INTO t VALUES (1, 10), (2, 20), (3, 30);`)
	for _, c := range []struct{ stmt, tag string }{
		{"UPDATE t SET v = 20 WHERE id <= 2", "UPDATE 1"},
		{"UPDATE t SET v = v WHERE id = 3", "UPDATE 0"},
		{"UPDATE t SET v = v + 1", "UPDATE 3"},
		{"UPDATE t SET v = 0 WHERE id > 10", "UPDATE 0"},
		{"DELETE FROM t WHERE v = 21", "DELETE 2"},
		{"DELETE FROM t WHERE id = 2", "DELETE 0"},
		{"DELETE FROM t", "DELETE 1"},
	} {
		res, err := execOne(t, s, c.stmt)
		if err != nil {
			t.Fatalf("%s: %v", c.stmt, err)
		}
		if res.Tag != c.tag {
			t.Errorf("%s: tag %q, want %q", c.stmt, res.Tag, c.tag)
		}
	}
	if got := text(run(t, s, "SELECT COUNT(*) FROM t;")); got != "0\n" {
		t.Errorf("rows left: %q", got)
	}
}

// TestDMLConcurrentDeletes runs DELETEs of the same rows from several
// sessions at once: each row is deleted once (the statements are
// serialized), so the view over the table stays consistent and the counts
// add up to the rows there were.
func TestDMLConcurrentDeletes(t *testing.T) {
	e := openEngine(t, Config{DataDir: t.TempDir(), Parallelism: 2})
	t.Cleanup(func() { e.Close() })
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE TABLE t (id BIGINT, v BIGINT, PRIMARY KEY (id));
		INSERT INTO t VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 3);
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS c, SUM(v) AS s FROM t;`)
	var wg sync.WaitGroup
	tags := make([]string, 4)
	for i := range tags {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := execOne(t, e.NewSession(SessionOptions{}), "DELETE FROM t WHERE v < 3")
			if err != nil {
				t.Error(err)
				return
			}
			tags[i] = res.Tag
		}()
	}
	wg.Wait()
	deleted := 0
	for _, tag := range tags {
		switch tag {
		case "DELETE 4":
			deleted += 4
		case "DELETE 0":
		default:
			t.Errorf("tag %q", tag)
		}
	}
	if deleted != 4 {
		t.Errorf("deleted %d rows in all (%s), want 4", deleted, strings.Join(tags, ", "))
	}
	run(t, s, "FLUSH;")
	if got := text(run(t, s, "SELECT * FROM n;")); got != "1 | 3\n" {
		t.Errorf("view: %q", got)
	}
}

// TestDMLOnOldTable checks a table whose log holds no change ops (created
// before they were kept, catalog.Object.LogOps unset): INSERT, the copy of
// INSERT ... SELECT and queries work as before, and UPDATE and DELETE are
// refused as not supported yet, naming it.
func TestDMLOnOldTable(t *testing.T) {
	s := newSession(t, Config{DataDir: t.TempDir(), Parallelism: 1})
	old := &catalog.Object{Name: "old", Kind: catalog.Table, PrimaryKey: []int{0},
		Columns: []catalog.Column{{Name: "id", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT, Nullable: true}}}
	if err := s.eng.cat.Create(old); err != nil {
		t.Fatal(err)
	}
	run(t, s, `CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS c, SUM(v) AS s FROM old;
		INSERT INTO old VALUES (1, 10), (2, 20);
		INSERT INTO old VALUES (1, 11);
		INSERT INTO old SELECT id + 10, v FROM old;
		FLUSH;`)
	if got := text(run(t, s, "SELECT * FROM n;")); got != "4 | 62\n" {
		t.Errorf("view over the old table: %q", got)
	}
	for _, stmt := range []string{"UPDATE old SET v = 1", "DELETE FROM old WHERE id = 1"} {
		_, err := execOne(t, s, stmt)
		if err == nil || !strings.Contains(err.Error(), "not supported yet") || !strings.Contains(err.Error(), "'old'") {
			t.Errorf("%s: error %v, want not supported yet naming 'old'", stmt, err)
		}
	}
}
