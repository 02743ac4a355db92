package tpch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eddysql/eddy/bench/tpch"
)

// TestGenerate checks the tables' sizes, that their keys are unique, that
// every foreign key has its row, and a few of dbgen's value domains.
func TestGenerate(t *testing.T) {
	ts := tables(t)
	sz, err := tpch.SizesOf(*scaleFactor)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"region": 5, "nation": 25, "supplier": sz.Suppliers, "customer": sz.Customers,
		"part": sz.Parts, "partsupp": 4 * sz.Parts, "orders": sz.Orders}
	keys := map[string]map[string]bool{}
	for _, tb := range ts {
		if n, ok := want[tb.Name]; ok && len(tb.Rows) != n {
			t.Errorf("%s has %d rows, want %d", tb.Name, len(tb.Rows), n)
		}
		ks := map[string]bool{}
		for _, row := range tb.Rows {
			if len(row) != len(tb.Columns) {
				t.Fatalf("%s row %v has %d values for %d columns", tb.Name, row, len(row), len(tb.Columns))
			}
			k := key(tb, row, tb.Key...)
			if ks[k] {
				t.Fatalf("%s has key %s twice", tb.Name, k)
			}
			ks[k] = true
		}
		keys[tb.Name] = ks
	}
	lines := table(t, "lineitem")
	if n := len(lines.Rows); n < 3*sz.Orders || n > 5*sz.Orders {
		t.Errorf("%d line items for %d orders", n, sz.Orders)
	}
	refs := []struct {
		from, to string
		cols     []string
	}{
		{"nation", "region", []string{"n_regionkey"}},
		{"supplier", "nation", []string{"s_nationkey"}},
		{"customer", "nation", []string{"c_nationkey"}},
		{"partsupp", "part", []string{"ps_partkey"}},
		{"partsupp", "supplier", []string{"ps_suppkey"}},
		{"orders", "customer", []string{"o_custkey"}},
		{"lineitem", "orders", []string{"l_orderkey"}},
		{"lineitem", "partsupp", []string{"l_partkey", "l_suppkey"}},
	}
	for _, r := range refs {
		from := table(t, r.from)
		for _, row := range from.Rows {
			if k := key(from, row, r.cols...); !keys[r.to][k] {
				t.Fatalf("%s row %v: no %s row of key %s", r.from, row, r.to, k)
			}
		}
	}
	custs := map[int64]bool{}
	for _, row := range table(t, "orders").Rows {
		c := row[1].(int64)
		if c%3 == 0 {
			t.Fatalf("order %v of customer %d, a multiple of 3", row, c)
		}
		custs[c] = true
	}
	if len(custs) < sz.Customers/2 {
		t.Errorf("only %d of %d customers have orders", len(custs), sz.Customers)
	}
	if p := table(t, "part").Rows[0]; p[0] != int64(1) || !strings.HasPrefix(p[3].(string), "Brand#") {
		t.Errorf("first part %v", p)
	}
	for _, row := range lines.Rows {
		if d := row[6].(float64); d < 0 || d > 0.1 {
			t.Fatalf("line item %v has discount %v", row, d)
		}
		if s := row[10].(string); len(s) != 10 || s < "1992-01-01" || s > "1998-12-31" {
			t.Fatalf("line item %v shipped %q", row, s)
		}
	}
}

// key renders the values of the named columns of a row.
func key(t *tpch.Table, row []any, cols ...string) string {
	var b strings.Builder
	for _, c := range cols {
		for i, col := range t.Columns {
			if col.Name == c {
				fmt.Fprintf(&b, "%v|", row[i])
			}
		}
	}
	return b.String()
}
