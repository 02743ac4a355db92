package optimizer_test

import (
	"testing"

	"github.com/eddysql/eddy/optimizer/opttest"
	"github.com/eddysql/eddy/planner"
)

// TestRules runs the golden files of testdata/rules, one per rule, each
// with a banner section showing the rule fire and not fire. The commands
// are opttest's (exec-ddl, stats, build, opt, trace, physical, cost).
// Regenerate with `go test ./optimizer -rewrite`.
func TestRules(t *testing.T) {
	opttest.Walk(t, "testdata/rules", planner.Continuous)
}
