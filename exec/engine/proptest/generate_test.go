package proptest

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/sql"
)

// sampleSeeds is how many cases the generator tests look at.
const sampleSeeds = 1000

// TestGeneratorDeterministic checks that a seed always gives the same case
// and that nearby seeds give different ones.
func TestGeneratorDeterministic(t *testing.T) {
	seen := map[string]uint64{}
	for seed := uint64(1); seed <= 200; seed++ {
		a, b := NewCase(seed).Script(), NewCase(seed).Script()
		if a != b {
			t.Fatalf("seed %d: two generations differ:\n%s\n---\n%s", seed, a, b)
		}
		q := NewCase(seed).Query.SQL
		if prev, dup := seen[q]; dup {
			t.Errorf("seeds %d and %d generate the same query %s", prev, seed, q)
		}
		seen[q] = seed
	}
}

// minShare is the share of cases, in per mille, in which each feature must
// appear. The thresholds sit well below the measured frequencies, so that
// they catch a feature the generator stopped producing, not noise.
var minShare = map[string]int{
	"filter": 500, "project": 250, "derived": 100, "view": 150, "view_over_view": 10,
	"join.regular": 80, "join.lookup": 60, "join.interval": 60, "join.window": 10, "join.3way": 50,
	"join.inner": 100, "join.left": 80, "join.right": 30, "join.full": 60, "join.comma": 5, "join.cross": 10,
	"filter.padded_side": 60, "join.on_or": 30, "join.4way": 30, "join.key_restriction": 100,
	"filter.repeated": 15, "distinct.over_key": 15, "pred.or_equalities": 120,
	"subquery.in": 30, "subquery.not_in": 25, "subquery.exists": 50, "subquery.not_exists": 40, "subquery.correlated": 70,
	"agg.count_star": 80, "agg.count": 80, "agg.count_distinct": 70, "agg.sum": 130, "agg.avg": 80,
	"agg.min": 70, "agg.max": 70, "agg.global": 20, "group_by": 250, "having": 100,
	"window.tumble": 50, "window.hop": 30, "window.cumulate": 20, "emit_on_window_close": 10,
	"topn": 60, "topn.partition": 20, "topn.dedup": 15, "topn.limit": 60,
	"union_all": 60, "union": 10, "distinct": 70,
	"setop.intersect": 25, "setop.intersect_all": 15, "setop.except": 25, "setop.except_all": 10, "setop.mixed_union": 10,
	"winfunc": 60, "winfunc.partition": 45, "winfunc.agg": 45, "winfunc.rank": 15, "winfunc.dist": 15,
	"winfunc.row_number": 3, "winfunc.ntile": 1, "winfunc.lag_lead": 5, "winfunc.value": 6, "winfunc.outer_filter": 8,
	"winfunc.frame_rows": 5, "winfunc.frame_range": 10, "winfunc.frame_range_offset": 4, "winfunc.frame_groups": 15,
	"winfunc.frame_following": 25,
	"expr.arith":              400, "expr.case": 100, "expr.cast": 120, "expr.func": 400,
	"pred.cmp": 500, "pred.and": 150, "pred.or": 300, "pred.not": 150, "pred.isnull": 200,
	"pred.in": 200, "pred.like": 200, "pred.between": 120, "pred.nullsafe": 120, "pred.truth": 100,
}

// subqueryShare is minShare for the features GenSubqueries adds.
var subqueryShare = map[string]int{
	"subquery.scalar": 100, "subquery.scalar_lookup": 20, "subquery.scalar_compare": 20, "subquery.select_list": 40,
	"subquery.bool_column": 10, "subquery.under_or": 20, "subquery.under_not": 20, "subquery.quantified": 20,
	"subquery.non_equality": 20, "subquery.having": 5,
}

// TestGeneratorFeatures checks that every feature the property test is
// meant to cover appears in a reasonable share of the cases, and that the
// generator names no feature this test does not know.
func TestGeneratorFeatures(t *testing.T) {
	checkShares(t, minShare)
}

// TestGeneratorSubqueries checks the features GenSubqueries adds, and
// that their statements parse.
func TestGeneratorSubqueries(t *testing.T) {
	GenSubqueries = true
	defer func() { GenSubqueries = false }()
	want := maps.Clone(minShare)
	maps.Copy(want, subqueryShare)
	checkShares(t, want)
	for seed := uint64(1); seed <= 300; seed++ {
		for _, st := range strings.Split(strings.TrimSpace(NewCase(seed).Script()), "\n") {
			if strings.HasPrefix(st, "--") {
				continue
			}
			if _, err := sql.ParseOne(st, sql.Pos{Line: 1, Col: 1}); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, st)
			}
		}
	}
}

// checkShares checks the features' shares of the cases against want.
func checkShares(t *testing.T, minShare map[string]int) {
	t.Helper()
	counts := map[string]int{}
	for seed := uint64(1); seed <= sampleSeeds; seed++ {
		for f := range NewCase(seed).Query.Features {
			counts[f]++
		}
	}
	for f, want := range minShare {
		if got := counts[f] * 1000 / sampleSeeds; got < want {
			t.Errorf("feature %s appears in %d‰ of the cases, want at least %d‰", f, got, want)
		}
	}
	for f := range counts {
		if _, ok := minShare[f]; !ok {
			t.Errorf("feature %s has no minimum share in this test", f)
		}
	}
}

// TestGeneratedSQLParses checks that every statement of the cases parses:
// the generator writes only valid syntax.
func TestGeneratedSQLParses(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		for _, st := range strings.Split(strings.TrimSpace(NewCase(seed).Script()), "\n") {
			if strings.HasPrefix(st, "--") {
				continue
			}
			if _, err := sql.ParseOne(st, sql.Pos{Line: 1, Col: 1}); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, st)
			}
		}
	}
}

// TestGeneratedSQLHasNoComment checks that no statement contains "--",
// which would start a comment: a unary minus before a negative literal
// must be written "- -1".
func TestGeneratedSQLHasNoComment(t *testing.T) {
	for seed := uint64(1); seed <= 5*sampleSeeds; seed++ {
		c := NewCase(seed)
		for _, st := range c.Setup(c.Sides[0]) {
			if strings.Contains(st, "--") {
				t.Fatalf("seed %d: %s", seed, st)
			}
		}
	}
}

// TestGeneratedDataIsNeverLate checks the event times of the generated
// streams: on a watermarked stream no row is older than the largest event
// time before it minus the watermark delay, so no row is late however the
// rows are batched. It also checks the key domains.
func TestGeneratedDataIsNeverLate(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		c := NewCase(seed)
		maxTs := map[string]int64{}
		ids := map[string]map[string]bool{}
		for _, rd := range c.Data.Rounds {
			for _, b := range append(append([]Batch(nil), rd.Tables...), rd.Streams...) {
				src := c.Schema.Source(b.Source)
				key := slices.IndexFunc(src.Columns, func(col Column) bool { return col.Name == src.Key })
				tc := slices.IndexFunc(src.Columns, func(col Column) bool { return col.Type == Time })
				for _, row := range b.Rows {
					checkRow(t, c, src, row, key, tc, maxTs, ids)
				}
			}
		}
	}
}

// checkRow checks one generated row (see TestGeneratedDataIsNeverLate).
func checkRow(t *testing.T, c *Case, src *Source, row []string, key, tc int, maxTs map[string]int64, ids map[string]map[string]bool) {
	t.Helper()
	if len(row) != len(src.Columns) {
		t.Fatalf("seed %d: %s row %v has %d values, want %d", c.Seed, src.Name, row, len(row), len(src.Columns))
	}
	k := row[key]
	if src.Table {
		if n, err := strconv.Atoi(k); err != nil || n < 0 || n > 9 {
			t.Fatalf("seed %d: %s key %s is not in 0..9", c.Seed, src.Name, k)
		}
		return
	}
	if ids[src.Name] == nil {
		ids[src.Name] = map[string]bool{}
	}
	if ids[src.Name][k] {
		t.Fatalf("seed %d: %s id %s repeats", c.Seed, src.Name, k)
	}
	ids[src.Name][k] = true
	if row[tc] == "NULL" {
		return
	}
	ts, err := types.ParseTimestamp(strings.Trim(row[tc], "'"))
	if err != nil {
		t.Fatalf("seed %d: %s time %s: %v", c.Seed, src.Name, row[tc], err)
	}
	if prev, ok := maxTs[src.Name]; ok && src.WatermarkSec > 0 && ts < prev-int64(src.WatermarkSec)*1000 {
		t.Fatalf("seed %d: %s row %s (ts %s) is late: the largest time before it is %s, the delay %d s",
			c.Seed, src.Name, k, row[tc], types.FormatTimestamp(prev, 3), src.WatermarkSec)
	}
	if prev, ok := maxTs[src.Name]; !ok || ts > prev {
		maxTs[src.Name] = ts
	}
}

// TestCaseParallelism checks that one side runs at parallelism 1 and the
// other at 1, 2 or 4, each side getting the higher one in some cases.
func TestCaseParallelism(t *testing.T) {
	higher := map[string]int{}
	for seed := uint64(1); seed <= 300; seed++ {
		c := NewCase(seed)
		on, off := c.Sides[0].Parallelism, c.Sides[1].Parallelism
		if min(on, off) != 1 || !slices.Contains([]int{1, 2, 4}, max(on, off)) {
			t.Fatalf("seed %d: parallelism on %d, off %d", seed, on, off)
		}
		switch {
		case on > 1:
			higher["on"]++
		case off > 1:
			higher["off"]++
		}
	}
	if higher["on"] < 50 || higher["off"] < 50 {
		t.Errorf("the parallel side is on in %d cases and off in %d of 300", higher["on"], higher["off"])
	}
}
