package engine

import (
	"strings"
	"testing"
)

// TestDropCascadeOrder checks that DROP ... CASCADE drops every object
// depending on the dropped one, each before the objects it reads (v3 reads
// v1 and v2, v2 reads v1), reports them in that order, and that a restart
// finds none of them.
func TestDropCascadeOrder(t *testing.T) {
	cfg := Config{DataDir: t.TempDir(), Parallelism: 1}
	e, s := reopen(t, cfg)
	run(t, s, `CREATE TABLE t (id BIGINT, v BIGINT, PRIMARY KEY (id));
		CREATE TABLE u (id BIGINT);
		CREATE MATERIALIZED VIEW v1 AS SELECT id, v FROM t;
		CREATE MATERIALIZED VIEW v2 AS SELECT id FROM v1 WHERE v > 1;
		CREATE MATERIALIZED VIEW v3 AS SELECT v1.id FROM v1 JOIN v2 ON v1.id = v2.id;
		CREATE MATERIALIZED VIEW w AS SELECT COUNT(*) AS c FROM u;`)
	res := run(t, s, "DROP TABLE t CASCADE;")
	want := "dropped materialized view 'v3'\ndropped materialized view 'v2'\ndropped materialized view 'v1'"
	if got := strings.Join(res.Notices, "\n"); got != want {
		t.Errorf("notices:\n%s\nwant:\n%s", got, want)
	}
	_, s = restart(t, e, cfg)
	for _, name := range []string{"t", "v1", "v2", "v3"} {
		if _, found := s.eng.cat.Get(name); found {
			t.Errorf("%s is still in the catalog after the restart", name)
		}
	}
	if got := text(run(t, s, "FLUSH; SELECT * FROM w;")); got != "0\n" {
		t.Errorf("w: %q", got)
	}
}
