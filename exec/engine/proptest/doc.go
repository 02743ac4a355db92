// Package proptest is the property test "the optimizer never changes
// answers": for random queries over random bounded data, the optimized
// plan and the plan with every optional rewrite rule disabled (SET
// optimizer = off, optimizer.OptionalRules) must hold the same rows.
//
// # A case
//
// Everything in a case follows from its seed (NewCase), through separate
// random streams for the schema, the data, the query and the run settings:
//
//   - Sources (GenSchema): three INSERT-fed streams s1, s2, s3 with a unique
//     id and an event time ts, each watermarked (1 to 4 seconds) two times
//     in three, and two tables t1 (PRIMARY KEY k) and t2 (PRIMARY KEY id).
//     Columns share names (k, g, v, x, d) so any two sources join.
//   - Data (GenData): three to five rounds. Each round upserts keys 0..9
//     into the tables (a known key is an update), then appends rows to the
//     streams, one stream after the other in an order that changes every
//     round. Domains are small and about one value in ten is NULL, so
//     joins and groups match often. Event times move forward with bounded
//     disorder and no source row is ever late, so the result cannot depend
//     on how rows are batched. DOUBLEs are multiples of 0.25, so sums are
//     exact.
//   - Query (GenQuery): one of filters and projections, joins (regular,
//     stream-table lookup, interval with BETWEEN bounds, window, comma and
//     cross; inner, left, right and full; up to four inputs), GROUP BY
//     or global aggregates with HAVING (COUNT, COUNT(DISTINCT), SUM, AVG,
//     MIN, MAX), TUMBLE, HOP and CUMULATE window aggregates (sometimes EMIT
//     ON WINDOW CLOSE), ROW_NUMBER Top-N over a derived table, ORDER BY ..
//     LIMIT, UNION ALL and UNION, INTERSECT and EXCEPT (ALL or DISTINCT,
//     sometimes with a UNION among them), window functions (RANK,
//     DENSE_RANK, PERCENT_RANK, CUME_DIST, ROW_NUMBER, NTILE, LAG, LEAD,
//     FIRST_VALUE, LAST_VALUE, NTH_VALUE and aggregates over ROWS, RANGE
//     and GROUPS frames, the position-dependent ones only under an ORDER BY
//     that ends with a unique key, sometimes filtered around), SELECT
//     DISTINCT, with IN, NOT IN, EXISTS and NOT EXISTS subqueries
//     (correlated or not) in WHERE. With
//     GenSubqueries (-prop.subqueries, on by default) it
//     also writes scalar subqueries (aggregates or key lookups, correlated
//     by equality or not) in the select list, WHERE and HAVING, subquery
//     predicates under OR and NOT, quantified comparisons (op ANY | ALL |
//     SOME) and subquery predicates as boolean columns. Inputs nest:
//     a FROM item may be a derived table or a helper view over another
//     generated query (views over views). Expressions use comparisons
//     (including <=>), AND/OR/NOT, IS [NOT] NULL, IS [NOT] TRUE/FALSE, IN
//     lists, BETWEEN, LIKE, CASE, IF, COALESCE, arithmetic, CAST and string
//     and number functions, all well typed. Some shapes are there for
//     particular rewrite rules: tests of the columns an outer join pads
//     (which may or may not reject NULLs), join keys restricted to
//     constants, disjunctions of equalities, a derived table's filter
//     repeated above it, DISTINCT over rows that are distinct already.
//     Query.Features names what a query uses; the generator tests check
//     each feature's frequency.
//   - Sides: the two plans, "on" and "off"; one of them (by seed) runs at
//     parallelism 1, 2 or 4, the other at 1.
//
// RunCase opens an in-memory engine, creates the sources, then each side's
// helper views and tested view (named on_h0.., on_v and off_h0.., off_v,
// each created after SET optimizer and SET parallelism), so both see every
// row as a change. It feeds each round as the tables' upserts, FLUSH, then
// each stream's rows and a FLUSH (Round.Statements) — so a lookup join
// sees the tables as the round left them, and rows of different streams
// meet in an order the case fixes: a join may output a row behind the
// watermark, and whether a window downstream has closed by then must not
// depend on which source was read first — and compares SELECT * of each
// helper view and of the tested view
// with its twin as multisets (Compare): DOUBLEs within a relative 1e-9,
// every other value exactly.
//
// # Outcomes
//
// A case agrees, is skipped (both plans refuse the query with "not
// supported yet"), differs (the views' rows or columns differ) or fails
// (one plan refuses the query and the other not, both refuse it with
// another error, a query fails while running, a statement panics or times
// out). Differences and failures fail the test, except those of a known
// issue (knownIssues in known_test.go), which are counted and logged; a
// known issue that rewrites the case (avoid) is confirmed only when the
// rewritten case agrees. TestKnownIssuesStillOccur tells when a known
// issue is fixed; its query then moves to fixedRepros, which
// TestFixedIssuesAgree runs so the bug stays fixed. (One issue is known
// today, a RANGE frame refused; the six others the test found are
// fixed.) A panic in a running query's goroutine is not recovered by the
// engine and ends the test binary: run the seed alone to find the case.
//
// # Running it
//
//	go test ./exec/engine/proptest                       # the default sample (300 cases, ~5 s; ~20 s with -race)
//	go test ./exec/engine/proptest -short                # a quarter of it
//	go test ./exec/engine/proptest -v -prop.n=1000        # the long mode, with the tally (~15 s)
//	go test ./exec/engine/proptest -prop.seed=S -prop.n=1 # reproduce the case of seed S
//	go test ./exec/engine/proptest -v -prop.subqueries=false    # without subqueries anywhere
//
// The tally counts the cases that agreed (and how many of them compared
// empty views), were skipped (by the feature not supported yet), differed
// or failed, and the cases of each known issue.
//
// Case i of a run has seed -prop.seed + i, so a reported seed reproduces
// alone. -prop.out=DIR writes each failing case as DIR/seed-S.sql, a
// script for `eddy exec -f` that creates both sides, feeds the rounds and
// selects both views; -prop.show logs every case; -prop.strict fails on
// known issues too.
package proptest
