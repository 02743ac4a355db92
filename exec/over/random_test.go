package over

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// TestRandom runs random changelogs — inserts, retractions of rows held
// and updates, with ties in the ORDER BY, identical rows and NULLs —
// through window aggregates of every frame and aggregate, and checks after
// every chunk that the integrated output equals a brute-force
// recomputation and that the output is a minimal changelog.
func TestRandom(t *testing.T) {
	frames := []plan.Frame{
		{Kind: plan.FrameRows},
		{Kind: plan.FrameRows, Preceding: 1},
		{Kind: plan.FrameRows, Preceding: 3},
		{Kind: plan.FrameRowsUnbounded},
		{Kind: plan.FramePeers},
		{Kind: plan.FramePartition},
	}
	const input = "bigint bigint bigint double varchar" // partition, order, value, double, string
	aggs := "count *, count 2, sum 2, avg 2, min 2, max 4, sum 3, avg 3, min 3"
	for seed := int64(1); seed <= 12; seed++ {
		for _, f := range frames {
			rng := rand.New(rand.NewSource(seed))
			order := "1"
			if rng.Intn(2) == 0 {
				order = "1 desc"
			}
			if f.Kind == plan.FramePartition {
				order = ""
			}
			part := []int{0}
			if seed%4 == 0 {
				part = nil
			}
			t.Run(fmt.Sprintf("seed=%d/%s/order=%q", seed, f, order), func(t *testing.T) {
				cfg := config(t, input, part, order, f, aggs)
				runSteps(t, cfg, randomSteps(rng, 40, 6, 3))
			})
		}
	}
}

// TestRandomLargePartition drives one partition of thousands of rows (a
// tree of several levels, whose nodes split and merge) with ROWS n
// PRECEDING frames.
func TestRandomLargePartition(t *testing.T) {
	if testing.Short() {
		t.Skip("large partition")
	}
	rng := rand.New(rand.NewSource(7))
	cfg := config(t, "bigint bigint bigint double varchar", nil, "1 desc",
		plan.Frame{Kind: plan.FrameRows, Preceding: 4}, "sum 2, min 3, count *")
	var steps []exectest.Step
	steps = append(steps, randomSteps(rng, 30, 300, 0)...)
	steps = append(steps, randomSteps(rng, 30, 20, 0)...)
	runSteps(t, cfg, steps)
}

// randomSteps returns n chunks of up to size random changes each: mostly
// inserts of rows in parts partitions (one, when parts is 0, with a wide
// order column), and retractions and updates of rows held, so that
// the changelog is valid. Steps expect no particular output (AnyOut).
func randomSteps(rng *rand.Rand, n, size, parts int) []exectest.Step {
	var held []string
	orders := 6
	if parts == 0 {
		parts, orders = 1, 100000
	}
	newRow := func() string {
		v := func(s string) string {
			if rng.Intn(6) == 0 {
				return "NULL"
			}
			return s
		}
		if len(held) > 0 && rng.Intn(8) == 0 {
			return held[rng.Intn(len(held))] // an identical copy
		}
		return strings.Join([]string{
			strconv.Itoa(rng.Intn(parts)),
			v(strconv.Itoa(rng.Intn(orders))),
			v(strconv.Itoa(rng.Intn(200) - 50)),
			v(strconv.FormatFloat(float64(rng.Intn(1000))/8-20, 'g', -1, 64)),
			v(string(rune('a' + rng.Intn(5)))),
		}, " ")
	}
	take := func() string {
		i := rng.Intn(len(held))
		row := held[i]
		held = slices.Delete(held, i, i+1)
		return row
	}
	var steps []exectest.Step
	for range n {
		var lines []string
		for range 1 + rng.Intn(size) {
			switch r := rng.Intn(10); {
			case r < 2 && len(held) > 0:
				lines = append(lines, "-D "+take())
			case r < 4 && len(held) > 0:
				old, row := take(), newRow()
				held = append(held, row)
				lines = append(lines, "-U "+old, "+U "+row)
			default:
				row := newRow()
				held = append(held, row)
				lines = append(lines, "+I "+row)
			}
		}
		steps = append(steps, exectest.Step{In: "bigint bigint bigint double varchar\n" + strings.Join(lines, "\n"), AnyOut: true})
	}
	return steps
}
