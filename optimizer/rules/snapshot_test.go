package rules_test

import (
	"testing"

	"github.com/eddysql/eddy/optimizer/opttest"
	"github.com/eddysql/eddy/planner"
)

// TestSnapshotRules runs the golden files of testdata/snapshot: rule cases
// that only pull queries have (a Sort exists only there), which the
// continuous-query goldens of optimizer/testdata/rules cannot bind. The
// commands are opttest's (exec-ddl, build, opt [expect=R,..]
// [expect-not=R,..], ...), planning pull queries.
// Regenerate with `go test ./optimizer/rules -rewrite`.
func TestSnapshotRules(t *testing.T) {
	opttest.Walk(t, "testdata/snapshot", planner.Snapshot)
}
