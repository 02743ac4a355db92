package cost_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
)

// TestSizeIsMemoized asks the size of every join of a 100-table chain, as
// physical planning does for each join's sides: each table's statistics
// are read once, not once per join above it (5,050 reads here without
// the memo).
func TestSizeIsMemoized(t *testing.T) {
	const n = 100
	cat, err := plantest.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	var ddl, from, where []string
	for i := range n {
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE t%d (k BIGINT PRIMARY KEY, v BIGINT);", i))
		from = append(from, fmt.Sprintf("t%d", i))
		if i > 0 {
			where = append(where, fmt.Sprintf("t%d.k = t%d.v", i, i-1))
		}
	}
	if err := plantest.ExecDDL(cat, strings.Join(ddl, "\n")); err != nil {
		t.Fatal(err)
	}
	q, err := plantest.BindText(cat, "SELECT t0.k FROM "+strings.Join(from, ", ")+" WHERE "+strings.Join(where, " AND "), planner.Continuous)
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	est := &cost.Estimator{Md: q.Md, Stats: func(o *catalog.Object) (cost.TableStats, bool) {
		reads++
		return cost.TableStats{Rows: 1000}, true
	}}
	joins := 0
	plan.WalkNodes(q.Root, func(x plan.Node) {
		if j, ok := x.(*plan.Join); ok {
			joins++
			first := est.Size(j)
			if again := est.Size(j); again != first {
				t.Fatalf("Size changed between calls: %g, %g", first, again)
			}
		}
	})
	if joins != n-1 {
		t.Fatalf("%d joins, want %d", joins, n-1)
	}
	if reads > 2*n {
		t.Errorf("sizing %d joins read statistics %d times", joins, reads)
	}
}

// TestRowsOfABoundedSource: a table's rows are its statistics' count, else
// what its connector estimates of a bounded input (a file's size), else
// the default — so a large file table is not taken for a small one.
func TestRowsOfABoundedSource(t *testing.T) {
	file := &catalog.Object{Name: "big", Kind: catalog.Table, Traits: catalog.SourceTraits{Bounded: true, Rows: 5e6}}
	none := &catalog.Object{Name: "t", Kind: catalog.Table}
	counted := &catalog.Object{Name: "c", Kind: catalog.Table, Traits: catalog.SourceTraits{Bounded: true, Rows: 5e6}}
	est := &cost.Estimator{Stats: func(o *catalog.Object) (cost.TableStats, bool) {
		if o == counted {
			return cost.TableStats{Rows: 42}, true
		}
		return cost.TableStats{}, false
	}}
	for _, tc := range []struct {
		o    *catalog.Object
		want float64
	}{{file, 5e6}, {none, cost.DefaultDistinct}, {counted, 42}} {
		if got := est.Rows(tc.o); got != tc.want {
			t.Errorf("%s: %v rows, want %v", tc.o.Name, got, tc.want)
		}
	}
}
