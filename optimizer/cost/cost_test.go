package cost_test

import (
	"testing"

	"github.com/eddysql/eddy/optimizer/opttest"
	"github.com/eddysql/eddy/planner"
)

// TestCost runs the golden files of testdata: for each cost-based choice
// — join order, hash or broadcast distribution, one- or two-phase
// aggregation, fusion of a Calc — the `cost` command prints the
// alternatives with the cost model's estimates, the one chosen and why,
// with a case on each side of every threshold. The commands are
// opttest's. Regenerate with `go test ./optimizer/cost -rewrite`.
func TestCost(t *testing.T) {
	opttest.Walk(t, "testdata", planner.Continuous)
}
