package optimizer_test

import (
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddysql/eddy/optimizer/opttest"
)

// TestRules runs the golden files of testdata/rules, one per rule, each
// with a banner section showing the rule fire and not fire. The commands
// are opttest's (exec-ddl, stats, build, opt, trace, physical, cost).
// Regenerate with `go test ./optimizer -rewrite`.
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, opttest.NewRunner(t).Run)
	})
}
