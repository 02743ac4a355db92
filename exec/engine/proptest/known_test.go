package proptest

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// issue is a known bug the property test finds. Its cases are counted and
// logged but fail the test only with -prop.strict, so that the test guards
// against new bugs while the known ones wait for their fix.
type issue struct {
	Name    string
	Summary string
	// match reports whether an outcome may show the issue.
	match func(Outcome) bool
	// avoid, when set, returns the case changed so that it no longer
	// meets the bug: the issue is confirmed only if the changed case
	// agrees, so a wrong result for another reason is still reported.
	avoid func(*Case) *Case
}

// knownIssues are the bugs found so far and not fixed yet. Remove an
// entry when its bug is fixed (its cases then count as agreeing again) and
// move its query from knownRepros to fixedRepros.
var knownIssues = []issue{}

// knownIssue returns the known issue an outcome shows, or nil. An issue
// with an avoid function is confirmed by running the changed case.
func knownIssue(ctx context.Context, out Outcome) *issue {
	for i := range knownIssues {
		k := &knownIssues[i]
		if !k.match(out) {
			continue
		}
		if k.avoid == nil || RunCase(ctx, k.avoid(out.Case)).Status == Agreed {
			return k
		}
	}
	return nil
}

// viewsSQL returns the text of a case's helper views.
func viewsSQL(c *Case) string {
	var b strings.Builder
	for _, v := range c.Query.Views {
		b.WriteString(v.SQL + "\n")
	}
	return b.String()
}

// withSQL returns a copy of the case whose query and helper views are
// rewritten by fn.
func (c *Case) withSQL(fn func(string) string) *Case {
	d := *c
	q := *c.Query
	q.SQL = fn(q.SQL)
	q.Views = nil
	for _, v := range c.Query.Views {
		v.SQL = fn(v.SQL)
		q.Views = append(q.Views, v)
	}
	d.Query = &q
	return &d
}

// knownRepros are the smallest queries that show each known issue, over
// the sources and data of seed 7.
var knownRepros = map[string]string{}

// fixedRepros are the smallest queries that showed the bugs the property
// test found and that are now fixed, over the sources and data of seed 7;
// TestFixedIssuesAgree keeps them fixed. Each fix has its own regression
// test beside it too (named in the comment).
var fixedRepros = map[string]string{
	// RANGE BETWEEN CURRENT ROW AND CURRENT ROW is the current row's peers
	// under any ORDER BY, bound as the GROUPS frame of the same bounds
	// (planner.frameOf): planner/testdata/build/window_functions.
	"range-current-row-multi-key": "SELECT a.k AS k, COUNT(*) OVER (ORDER BY a.g, a.k RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS n " +
		"FROM t1 AS a",
	// RowNumberToTopN (required) finds the rn filter through the derived
	// table's projection itself, not only after PushFilterThroughProject
	// (optional) brought it down: optimizer/testdata/rules/row_number_to_top_n.
	"row-number-needs-optimizer": "SELECT t.id AS id FROM (SELECT a.id AS id, ROW_NUMBER() OVER (ORDER BY a.id) AS rn " +
		"FROM s1 AS a) AS t WHERE t.rn <= 2",
	// RowNumberToTopN turns a filter folded to FALSE (rn <= 2 AND 1 = 2)
	// into a Top-1 under it: optimizer/testdata/rules/row_number_to_top_n.
	"row-number-false-conjunct": "SELECT t.id AS id FROM (SELECT a.id AS id, ROW_NUMBER() OVER (ORDER BY a.id) AS rn " +
		"FROM s1 AS a) AS t WHERE t.rn <= 2 AND 1 = 2",
	// The front end took the column after EXTRACT's FROM, and the select
	// list after EXTRACT's parenthesis, for tables, and missed the FULL
	// JOIN's right side: sql.TestFullJoinFunctionFrom.
	"full-join-extract": "SELECT a.k AS k FROM t1 AS a FULL JOIN (SELECT EXTRACT(SECOND FROM b.ts) AS e, b.k AS k " +
		"FROM s1 AS b) AS d ON a.k = d.k",
	// PushFilterIntoJoin took `x <=> NULL` over the padded side for a
	// NULL-rejecting predicate and made the LEFT JOIN inner:
	// optimizer/testdata/rules/push_filter_into_join.
	"null-safe-equality-rejects-nulls": "SELECT s.id AS id, t.k AS k FROM s1 AS s LEFT JOIN t1 AS t ON s.k = t.k " +
		"WHERE t.g <=> NULL",
	// InferJoinPredicates added a.k = 0 to a side filtered by FALSE, which
	// FoldConstants folded away again, forever:
	// optimizer/testdata/rules/infer_join_predicates.
	"infer-join-predicates-cycle": "SELECT a.k AS k FROM t1 AS a JOIN (SELECT b.k AS k FROM t2 AS b WHERE FALSE) AS d " +
		"ON a.k = d.k WHERE a.k = 0",
	// InferJoinPredicates added a.k > 3 onto an INTERSECT, which
	// PushFilterIntoSetOp moved into its inputs, forever: implied did not
	// look through INTERSECT and EXCEPT:
	// optimizer/testdata/rules/infer_join_predicates.
	"infer-join-predicates-setop-cycle": "SELECT a.k AS k FROM s1 AS a JOIN (SELECT b.k AS k FROM t1 AS b INTERSECT " +
		"SELECT c.k AS k FROM s3 AS c) AS d ON a.k = d.k WHERE a.k > 3",
}

// TestKnownIssuesStillOccur runs each known issue's smallest query. When
// one no longer shows its issue, the bug is fixed: remove the issue from
// knownIssues (and its query from knownRepros).
func TestKnownIssuesStillOccur(t *testing.T) {
	for _, k := range knownIssues {
		t.Run(k.Name, func(t *testing.T) {
			sql, ok := knownRepros[k.Name]
			if !ok {
				t.Fatalf("known issue %s has no query in knownRepros", k.Name)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out := RunCase(ctx, handCase(7, sql))
			if got := knownIssue(ctx, out); got == nil || got.Name != k.Name {
				t.Errorf("%s: the query no longer shows the issue (%s %s): if the bug is fixed, remove it from knownIssues\n%s",
					k.Name, out.Status, out.Reason, sql)
			}
		})
	}
}

// TestFixedIssuesAgree runs the query of each fixed issue: both plans must
// accept it and agree.
func TestFixedIssuesAgree(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(fixedRepros)) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			sql := fixedRepros[name]
			if out := RunCase(ctx, handCase(7, sql)); out.Status != Agreed {
				t.Errorf("%s: %s %s\n%s%s", name, out.Status, out.Reason, sql, out.Diff.String())
			}
		})
	}
}
