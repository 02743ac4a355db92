package planner_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
	"github.com/eddysql/eddy/sql"
)

// TestBuild runs the golden files of testdata/build. Commands:
//
//	exec-ddl                  CREATE statements
//	build [mode=snapshot]     the bound logical plan, then the result columns
//	                          with their types; errors print with their caret
//
// Regenerate with `go test ./planner -rewrite`.
func TestBuild(t *testing.T) {
	plantest.Walk(t, "testdata/build", func(t *testing.T, cat *catalog.Catalog) func(*testing.T, *datadriven.TestData) string {
		return func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "build" {
				d.Fatalf(t, "unknown command %s", d.Cmd)
			}
			return build(cat, d)
		}
	})
}

// build binds the query of a build command and prints its plan and result
// columns.
func build(cat *catalog.Catalog, d *datadriven.TestData) string {
	mode := planner.Continuous
	for _, a := range d.CmdArgs {
		if a.Key == "mode" && a.Vals[0] == "snapshot" {
			mode = planner.Snapshot
		}
	}
	q, err := plantest.BindText(cat, d.Input, mode)
	if err != nil {
		return formatErr(err)
	}
	var b strings.Builder
	b.WriteString(plan.Format(q.Md, q.Root))
	for i, c := range q.Cols {
		col := q.Md.Column(c)
		null := ""
		if !col.Nullable {
			null = " NOT NULL"
		}
		fmt.Fprintf(&b, "output %s %s%s\n", q.Names[i], col.Type, null)
	}
	if q.Limit >= 0 {
		fmt.Fprintf(&b, "push limit %d\n", q.Limit)
	}
	return b.String()
}

func formatErr(err error) string {
	out := "error: " + err.Error() + "\n"
	var pe sql.PosError
	if errors.As(err, &pe) && pe.Snippet() != "" {
		out += pe.Snippet()
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
	}
	return out
}
