package agg

import (
	"testing"

	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// TestHashAggInlineMultisets follows one group's MIN and MAX multisets
// through the operator as they spill past aggstate.InlineValues distinct
// values, move back inline, take retractions of values inserted in the same
// batch, and are freed with their group while spilled.
func TestHashAggInlineMultisets(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "count(*)", "max(1)", "min(1)")
	const hdr = "bigint bigint\n"
	runSteps(t, cfg, []exectest.Step{
		// Five values: spilled.
		{In: hdr + "+I 1 10\n+I 1 20\n+I 1 30\n+I 1 40\n+I 1 50", Want: `+I 1 5 50 10`},
		// Down to two values: back inline, with the extremes retracted.
		{In: hdr + "-D 1 50\n-D 1 10\n-D 1 40", Want: "-U 1 5 50 10\n+U 1 2 30 20"},
		// A value inserted and retracted within the batch leaves no trace.
		{In: hdr + "+I 1 60\n-D 1 60\n+I 1 5", Want: "-U 1 2 30 20\n+U 1 3 30 5"},
		// A retraction and a re-insertion of the maximum in one batch
		// change nothing.
		{In: hdr + "-D 1 30\n+I 1 30", Want: ""},
		// Spilled again, with repeated values, then emptied while spilled
		// in the batch that creates group 2.
		{In: hdr + "+I 1 1\n+I 1 2\n+I 1 3\n+I 1 3", Want: "-U 1 3 30 5\n+U 1 7 30 1"},
		{In: hdr + "-D 1 1\n-D 1 2\n-D 1 3\n-D 1 3\n+I 2 7\n-D 1 5\n-D 1 20\n-D 1 30",
			Want: "-D 1 7 30 1\n+I 2 1 7 7"},
		// Group 3 reuses group 1's slot and finds its multisets empty.
		{In: hdr + "+I 3 9", Want: `+I 3 1 9 9`},
	})
}

// TestHashAggBatchIsASet checks that a batch's changes to a group are
// summed before its counts are checked: a Z-set batch has no order, so a
// retraction is valid when the batch also inserts what it retracts.
func TestHashAggBatchIsASet(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "count(*)", "count(1)", "sum(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n-D 1 10\n+I 1 10\n+I 2 3", Want: `+I 2 1 1 3`},
		{In: "bigint bigint\n-D 2 3\n+I 2 4\n-D 1 5\n+I 1 5", Want: "-U 2 1 1 3\n+U 2 1 1 4"},
		{In: "bigint bigint\n+I 1 1\n-D 1 1\n-D 1 1", Err: aggstate.ErrNegativeCount},
	})
}

// TestHashAggBatchSums checks SUM's per-batch 128-bit folding: a batch's
// sum may exceed 64 bits in either direction as long as the group's sum
// ends in range, and AVG keeps a sum beyond 64 bits across batches.
func TestHashAggBatchSums(t *testing.T) {
	const max, min = "9223372036854775807", "-9223372036854775808"
	cfg := testConfig(t, "bigint bigint", []int{0}, "sum(1)", "avg(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 " + max + "\n+I 1 " + max + "\n+I 1 " + max + "\n+I 2 " + min + "\n+I 2 " + min +
			"\n-D 1 " + max + "\n-D 1 " + max + "\n+I 2 1\n-D 2 " + min,
			Want: "+I 1 " + max + " 9223372036854776000\n+I 2 -9223372036854775807 -4611686018427388000"},
		{In: "bigint bigint\n+I 2 " + min, Err: accum.ErrOverflow},
	})
	cfg = testConfig(t, "bigint bigint", []int{0}, "avg(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 " + max + "\n+I 1 " + max, Want: "+I 1 9223372036854776000"},
		// The multiple of 2^64 held since the first batch cancels out.
		{In: "bigint bigint\n+I 1 " + min + "\n+I 1 " + min, Want: "-U 1 9223372036854776000\n+U 1 -0.5"},
	})
}
