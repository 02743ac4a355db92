-- UNION ALL: a multiset union that passes every change through, also the
-- retractions of a table or view.

-- entry: union_all_streams
-- needs: union
CREATE MATERIALIZED VIEW v AS
  SELECT auction AS id, price AS amount, 'bid' AS src FROM bid WHERE price > 50000
  UNION ALL
  SELECT id, g, 'ev' FROM ev WHERE g > 3;

-- entry: union_all_aggregate
-- needs: union
-- Aggregating a union of a stream and a table.
CREATE MATERIALIZED VIEW v AS
  SELECT who, COUNT(*) AS n FROM (
    SELECT bidder AS who FROM bid WHERE price > 20000
    UNION ALL
    SELECT id FROM person WHERE active) AS u
  GROUP BY who;

-- entry: union_all_types
-- needs: union
-- Branches of BIGINT and DECIMAL meet in a DECIMAL; the same rows twice
-- count twice.
CREATE MATERIALIZED VIEW v AS
  SELECT k, SUM(v) AS total, COUNT(*) AS n FROM (
    SELECT k, g AS v FROM ev
    UNION ALL
    SELECT k, d FROM ev
    UNION ALL
    SELECT k, g FROM ev WHERE g < 0) AS u
  GROUP BY k;
