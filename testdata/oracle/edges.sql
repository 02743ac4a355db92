-- Edge cases of incremental evaluation: DISTINCT over aggregates that
-- change, HAVING without GROUP BY, views without a source, global
-- aggregates over views that never or no longer hold rows.

-- entry: distinct_of_aggregate
-- The set of distinct per-bidder counts: every bid changes one count, so
-- old counts must leave the set when no bidder has them any more.
CREATE MATERIALIZED VIEW v AS
  SELECT DISTINCT COUNT(*) AS n FROM bid GROUP BY bidder;

-- entry: group_by_without_aggregates
-- GROUP BY without aggregates is DISTINCT, also over a changing table.
CREATE MATERIALIZED VIEW v AS
  SELECT city, state FROM person WHERE active GROUP BY city, state;

-- entry: having_without_group_by
-- HAVING on a global aggregate keeps its one row or none.
CREATE MATERIALIZED VIEW kept AS
  SELECT COUNT(*) AS n, MAX(price) AS hi FROM bid HAVING COUNT(*) > 100;
CREATE MATERIALIZED VIEW dropped AS
  SELECT COUNT(*) AS n FROM bid HAVING COUNT(*) > 100000;
CREATE MATERIALIZED VIEW table_kept AS
  SELECT COUNT(*) AS n FROM person HAVING MIN(credit) > 0;

-- entry: constant_view
-- A view without a source holds its one row.
CREATE MATERIALIZED VIEW v AS
  SELECT 1 AS one, 'two' AS two, 3.5 AS three, 7 DIV 2 AS four, TIMESTAMP '2024-03-01 10:00:00.250' AS five;

-- entry: global_over_empty_view
-- Global aggregates over a view that never holds a row, and over one
-- that holds rows only for a while (person 7's first row, replaced in
-- the same INSERT).
CREATE MATERIALIZED VIEW never AS SELECT auction, price FROM bid WHERE price < 0;
CREATE MATERIALIZED VIEW count_never AS SELECT COUNT(*) AS n, SUM(price) AS s FROM never;
CREATE MATERIALIZED VIEW briefly AS SELECT id, credit FROM person WHERE credit < 2;
CREATE MATERIALIZED VIEW count_briefly AS SELECT COUNT(*) AS n, MIN(credit) AS lo FROM briefly;

-- entry: aggregate_of_global_aggregate
-- A view over a one-row global aggregate that changes with every batch.
CREATE MATERIALIZED VIEW totals AS
  SELECT COUNT(*) AS n, SUM(price) AS total FROM bid;
CREATE MATERIALIZED VIEW derived AS
  SELECT n, total, total / n AS mean, n > 1000 AS many FROM totals;
