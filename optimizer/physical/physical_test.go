package physical_test

import (
	"testing"

	"github.com/eddysql/eddy/optimizer/opttest"
	"github.com/eddysql/eddy/planner"
)

// TestPhysical runs the golden files of testdata: physical plans as
// EXPLAIN prints them — exchanges and their distribution, parallelism,
// estimates, and which operators fuse into one stage — with a case on
// each side of every physical choice's threshold. The commands are
// opttest's; `physical` takes the session settings physical planning
// follows (parallelism, join-distribution, two-phase, broadcast-budget).
// Regenerate with `go test ./optimizer/physical -rewrite`.
func TestPhysical(t *testing.T) {
	opttest.Walk(t, "testdata", planner.Continuous)
}
