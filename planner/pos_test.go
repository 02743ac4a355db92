package planner_test

import (
	"testing"

	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
)

// TestExpressionPositions checks that the binder gives the expressions that
// can fail at run time (arithmetic, negation, casts explicit and implicit,
// function calls, date arithmetic and its interval) the line and column
// they were written at, which exec/expr reports with their row errors.
func TestExpressionPositions(t *testing.T) {
	cat, err := plantest.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if err := plantest.ExecDDL(cat, "CREATE STREAM bid (auction BIGINT, price BIGINT, channel VARCHAR, date_time TIMESTAMP(3));"); err != nil {
		t.Fatal(err)
	}
	q, err := plantest.BindText(cat, `SELECT price + 1 AS a,
  CAST(channel AS BIGINT) AS b, ABS(price) AS c,
   -price AS d, date_time + INTERVAL 1 DAY AS e,
  DATE_ADD(date_time, INTERVAL 9223372036854775807 SECOND) AS f,
  price = channel AS g
FROM bid`, planner.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := q.Root.(*plan.Project)
	if !ok {
		t.Fatalf("root is %T, want a Project", q.Root)
	}
	pos := func(e plan.Expr) plan.Pos {
		switch e := e.(type) {
		case *plan.Binary:
			return e.Pos
		case *plan.Unary:
			return e.Pos
		case *plan.Cast:
			return e.Pos
		case *plan.Func:
			return e.Pos
		}
		t.Fatalf("%s is a %T", e, e)
		return plan.Pos{}
	}
	item := func(i int) plan.Expr { return p.Items[i].Expr }
	for _, c := range []struct {
		e    plan.Expr
		want string
	}{
		{item(0), "1:8"},                   // price + 1
		{item(1), "2:3"},                   // CAST(channel AS BIGINT)
		{item(2), "2:33"},                  // ABS(price)
		{item(3), "3:4"},                   // -price
		{item(4), "3:17"},                  // date_time + INTERVAL 1 DAY
		{item(5), "4:3"},                   // DATE_ADD(...)
		{item(5).(*plan.Binary).R, "4:32"}, // the interval too long for a constant
		{item(6).(*plan.Binary).R, "5:3"},  // the implicit cast of channel to DOUBLE, at the comparison
	} {
		if got := pos(c.e); !got.IsKnown() || got.String() != c.want {
			t.Errorf("%s is at %v, want %s", c.e, got, c.want)
		}
	}
}
