package engine

import (
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/nexmark"
)

// TestReadColumns checks the columns a source that reads some of its
// columns is opened with, and the ordinals the scan then takes from its
// chunks: the columns read, in their declared order and once each, and
// the first when the scan reads none.
func TestReadColumns(t *testing.T) {
	var cols []catalog.Column
	for _, n := range []string{"a", "b", "c", "d"} {
		cols = append(cols, catalog.Column{Name: n, Type: types.BigIntT})
	}
	for _, tc := range []struct {
		ords     []int
		read     []string
		remapped []int
	}{
		{[]int{0, 1, 2, 3}, []string{"a", "b", "c", "d"}, []int{0, 1, 2, 3}},
		{[]int{1, 3}, []string{"b", "d"}, []int{0, 1}},
		{[]int{3, 1, 3}, []string{"b", "d"}, []int{1, 0, 1}},
		{[]int{2}, []string{"c"}, []int{0}},
		{nil, []string{"a"}, []int{}},
	} {
		read, remapped := readColumns(cols, tc.ords)
		var names []string
		for _, c := range read {
			names = append(names, c.Name)
		}
		if !slices.Equal(names, tc.read) || !slices.Equal(remapped, tc.remapped) {
			t.Errorf("ords %v: read %v with ordinals %v, want %v with %v", tc.ords, names, remapped, tc.read, tc.remapped)
		}
	}
}

// recordingNexmark is the nexmark connector under another name, recording
// the columns each Open gets.
type recordingNexmark struct {
	nexmark.Connector
	mu     sync.Mutex
	opened [][]string
}

func (*recordingNexmark) Name() string { return "nexmark_rec" }

// asNexmark returns spec with the options nexmark checks.
func asNexmark(spec connector.Spec) connector.Spec {
	spec.Options = maps.Clone(spec.Options)
	spec.Options["connector"] = nexmark.Name
	return spec
}

func (c *recordingNexmark) Check(spec connector.Spec, env connector.Env) error {
	return c.Connector.Check(asNexmark(spec), env)
}

func (c *recordingNexmark) Traits(spec connector.Spec) catalog.SourceTraits {
	return c.Connector.Traits(asNexmark(spec))
}

func (c *recordingNexmark) Open(spec connector.Spec, read connector.Read, env connector.Env) (exec.Source, error) {
	var names []string
	for _, col := range spec.Columns {
		names = append(names, col.Name)
	}
	c.mu.Lock()
	c.opened = append(c.opened, names)
	c.mu.Unlock()
	return c.Connector.Open(asNexmark(spec), read, env)
}

// TestSourceOpenedWithColumnsRead runs a view over a nexmark stream that
// reads two of its seven columns, one of them twice: the connector (a
// connector.ColumnReader) is opened with those two only, and the view's
// rows are those of the same view over the plain nexmark connector.
func TestSourceOpenedWithColumnsRead(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	rec := &recordingNexmark{}
	s.eng.conns.AddSource(rec)
	run(t, s, `CREATE STREAM bid WITH (connector = 'nexmark_rec', table = 'bid', events = '3000');
		CREATE STREAM bid2 WITH (connector = 'nexmark', table = 'bid', events = '3000');
		CREATE MATERIALIZED VIEW v AS SELECT bidder, MAX(price) AS top, MAX(price) + bidder AS x FROM bid GROUP BY bidder;
		CREATE MATERIALIZED VIEW w AS SELECT bidder, MAX(price) AS top, MAX(price) + bidder AS x FROM bid2 GROUP BY bidder;
		FLUSH;`)
	got := text(run(t, s, "SELECT * FROM v ORDER BY bidder;"))
	if want := text(run(t, s, "SELECT * FROM w ORDER BY bidder;")); got != want || got == "" {
		t.Fatalf("view over the columns read:\n%s\nover every column:\n%s", got, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.opened) == 0 {
		t.Fatal("the connector was never opened")
	}
	for _, cols := range rec.opened {
		if !slices.Equal(cols, []string{"bidder", "price"}) {
			t.Errorf("opened with columns %v, want [bidder price]", cols)
		}
	}
}
