package topn

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
)

// randomCase is a configuration of the randomized test.
type randomCase struct {
	name       string
	input      string
	part       []int
	order      string
	limit      int64
	rowNumber  bool
	appendOnly bool
	wide       int // if > 0, column 0 is a bigint drawn from [0, wide)
}

// randomCases are the configurations of the randomized and the restore
// tests.
var randomCases = []randomCase{
	{name: "partitioned-rn", input: "bigint varchar bigint", part: []int{0}, order: "2 desc", limit: 3, rowNumber: true},
	{name: "partitioned", input: "bigint varchar bigint", part: []int{0}, order: "2 desc", limit: 3},
	{name: "global-doubles", input: "double bigint", order: "0", limit: 4},
	{name: "global-doubles-rn", input: "double bigint", order: "0 desc", limit: 4, rowNumber: true},
	{name: "two-keys", input: "decimal(10,2) varchar date boolean", part: []int{1}, order: "0, 2 desc", limit: 2, rowNumber: true},
	{name: "two-partition-keys", input: "decimal(10,2) varchar date boolean", part: []int{1, 3}, order: "0, 2 desc", limit: 2, rowNumber: true},
	{name: "double-partition", input: "double bigint varchar", part: []int{0}, order: "1 desc, 2", limit: 2},
	{name: "limit-one", input: "bigint timestamp(3) varchar", part: []int{0}, order: "1 desc", limit: 1},
	{name: "order-in-partition", input: "bigint bigint varchar", part: []int{0, 1}, order: "1, 2 desc", limit: 2, rowNumber: true},
	{name: "append-only-rn", input: "bigint varchar bigint", part: []int{0}, order: "2", limit: 3, rowNumber: true, appendOnly: true},
	{name: "append-only", input: "varchar double", part: []int{0}, order: "1 desc", limit: 2, appendOnly: true},
	{name: "dedup-first", input: "bigint timestamp(3) varchar", part: []int{0}, order: "1", limit: 1, appendOnly: true},
	{name: "dedup-last", input: "bigint timestamp(3) varchar", part: []int{0}, order: "1 desc", limit: 1, appendOnly: true},
	{name: "dedup-last-varchar", input: "varchar timestamp(3) bigint", part: []int{0}, order: "1 desc", limit: 1, appendOnly: true},
	// A DESC value of every type is decoded from an inverted copy of its
	// own bytes, before the values that follow it.
	{name: "desc-every-type", input: "bigint decimal(10,2) boolean varchar date double", part: []int{0}, order: "2 desc, 1 desc, 3 desc, 4 desc, 5 desc", limit: 3, rowNumber: true},
	// A pull query's ROW_NUMBER() numbers every row.
	{name: "number-all", input: "bigint varchar bigint", part: []int{0}, order: "2 desc", limit: math.MaxInt64, rowNumber: true},
	{name: "keep-all", input: "bigint varchar", order: "1", limit: math.MaxInt64},
	// Many distinct rows in one partition make the trees split and merge.
	{name: "deep-tree-rn", input: "bigint bigint", order: "0", limit: 40, rowNumber: true, wide: 400},
	{name: "deep-tree", input: "bigint bigint", part: []int{1}, order: "0 desc", limit: 150, wide: 1000},
	{name: "deep-append-only", input: "bigint bigint", order: "0 desc", limit: 100, rowNumber: true, appendOnly: true, wide: 1000},
	{name: "global-append-only", input: "bigint bigint", order: "0 desc", limit: 5, appendOnly: true, wide: 1000},
}

func TestRandomized(t *testing.T) {
	for _, tc := range randomCases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(6) {
				randomRun(t, tc, rand.New(rand.NewPCG(seed, 7)))
			}
		})
	}
}

// randomRun feeds random chunks of inserts, deletes and updates (only
// ever retracting rows present, sometimes within the same chunk) and checks
// the integrated output against the brute force after every chunk. In
// append-only cases it checks that the state stays bounded.
func randomRun(t *testing.T, tc randomCase, r *rand.Rand) {
	t.Helper()
	cfg := testConfig(t, tc.input, tc.part, tc.order, tc.limit, tc.rowNumber, tc.appendOnly)
	alloc := exectest.Alloc(t)
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env := exec.NewTestEnv(alloc)
	if err := op.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	out := newCollector(t)
	in := exectest.NewIntegral(cfg.Input)
	changes := randomChanges(tc, r)
	chunks, maxRows := 60, 12
	if tc.wide > 0 {
		chunks, maxRows = 40, 80
	}
	for step := range chunks {
		lines := changes.Next(maxRows)
		brute.Apply(t, step, op, alloc, in, out, tc.input+"\n"+strings.Join(lines, "\n"))
		brute.Check(t, step, out, bruteTopN(cfg, in))
		if held := env.Metrics.StateKeys.Load(); !tc.appendOnly && held != int64(len(changes.Live)) {
			t.Fatalf("step %d: %d rows held, want %d", step, held, len(changes.Live))
		}
		if tc.appendOnly {
			checkBounded(t, step, cfg, env.Metrics, changes.Live)
		}
	}
}

// randomChanges returns a generator of random changes of tc's input.
func randomChanges(tc randomCase, r *rand.Rand) *brute.Changes {
	row := brute.RandomRow(r, tc.input, brute.Domains)
	return &brute.Changes{Rand: r, AppendOnly: tc.appendOnly, Row: func() string {
		if tc.wide == 0 {
			return row()
		}
		// Column 0 from [0, wide): drawn after the others, as it replaces one.
		_, rest, _ := strings.Cut(row(), " ")
		return strconv.Itoa(r.IntN(tc.wide)) + " " + rest
	}}
}

// checkBounded checks that an append-only Top-N holds at most Limit
// rows per partition of the input.
func checkBounded(t *testing.T, step int, cfg Config, m *exec.OperatorMetrics, live []string) {
	t.Helper()
	parts := map[string]int64{}
	for _, row := range live {
		f := strings.Fields(row)
		var key []string
		for _, c := range cfg.Partition {
			key = append(key, f[c])
		}
		k := strings.Join(key, " ")
		parts[k] = min(parts[k]+1, cfg.Limit)
	}
	var bound int64
	for _, n := range parts {
		bound += n
	}
	if held := m.StateKeys.Load(); held != bound {
		t.Fatalf("step %d: %d rows held, want %d (at most %d per partition)", step, held, bound, cfg.Limit)
	}
}
