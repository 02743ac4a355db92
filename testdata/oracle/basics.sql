-- Filters, projections and scalar expressions, row by row: no state, so
-- every row of the input is one change of the view.

-- entry: bid_filter_project
-- A conjunction of filters and a projection with arithmetic.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, bidder, price * 100 AS cents, channel, date_time
  FROM bid WHERE price > 500 AND channel <> 'baidu';

-- entry: arithmetic
-- `/` is always DOUBLE (NULL for a zero divisor), DIV truncates toward
-- zero, % keeps the dividend's sign; precedence and unary minus.
-- auction - 1000 is 0 for auction 1000: division by zero.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, price, price / 7 AS q, price DIV 7 AS iq, price % 7 AS r,
         (price + bidder) / (auction - 1000) AS ratio, (bidder - 30) DIV (auction - 1000) AS idiv,
         (bidder - 30) % 4 AS neg_mod, -price + auction * 2 - bidder AS mixed, 2 + 3 * price % 5 AS prec
  FROM bid WHERE bidder <= 10;

-- entry: mixed_numeric_types
-- Integer with decimal is exact decimal arithmetic; anything with a double
-- is double arithmetic; comparisons across the types.
CREATE MATERIALIZED VIEW v AS
  SELECT id, g + d AS gd, d * 2 AS d2, x + g AS xg, d - x AS dx, g * 1.5 AS g15,
         d > x AS d_gt_x, g = d AS g_eq_d, x <= 0.5 AS small
  FROM ev;

-- entry: null_logic
-- Three-valued logic over NULL booleans and comparisons with NULL.
CREATE MATERIALIZED VIEW v AS
  SELECT id, flag, flag AND g > 0 AS f_and, flag OR g > 0 AS f_or, NOT flag AS f_not,
         g IS NULL AS g_null, x IS NOT NULL AS x_set, flag IS TRUE AS f_true,
         flag IS NOT FALSE AS f_not_false, g <=> NULL AS g_nullsafe, g = NULL AS g_eq_null
  FROM ev;

-- entry: where_null_semantics
-- WHERE keeps rows whose condition is true: NULL in IN lists, NOT IN with
-- a NULL (never true), BETWEEN and NOT BETWEEN, conditions on NULLs.
CREATE MATERIALIZED VIEW v AS
  SELECT id, k, g FROM ev
  WHERE (k IN ('a', 'c', NULL) AND g BETWEEN -2 AND 2)
     OR (g NOT IN (1, 2, NULL))
     OR (k NOT IN ('a', 'b') AND g NOT BETWEEN -4 AND 4)
     OR (flag AND x IS NULL);

-- entry: like_patterns
-- LIKE is case-sensitive in eddy: % and _, ESCAPE, NOT LIKE, and NULL.
CREATE MATERIALIZED VIEW v AS
  SELECT id, s, s LIKE 'a%' AS starts_a, s LIKE '%a' AS ends_a, s LIKE '_l%' AS second_l,
         s LIKE 'x!_y!%%' ESCAPE '!' AS esc, s NOT LIKE '%a%' AS no_a, s LIKE '' AS empty
  FROM ev;

-- entry: bid_time_range
-- Comparisons with TIMESTAMP literals (milliseconds count) and timestamp
-- arithmetic with INTERVALs.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, price, date_time, date_time + INTERVAL '90' SECOND AS later,
         date_time - INTERVAL 1 DAY AS day_before
  FROM bid
  WHERE date_time >= TIMESTAMP '2024-03-01 10:01:00' AND date_time < TIMESTAMP '2024-03-01 10:02:30.500'
    AND date_time + INTERVAL '5' MINUTE > TIMESTAMP '2024-03-01 10:06:10';

-- entry: case_expressions
-- Searched and simple CASE, with and without ELSE; NULL matches no WHEN;
-- branches of integer and decimal meet in a decimal.
CREATE MATERIALIZED VIEW v AS
  SELECT id,
         CASE WHEN g > 2 THEN 'big' WHEN g > 0 THEN 'small' WHEN g IS NULL THEN 'none' ELSE 'neg' END AS size,
         CASE k WHEN 'a' THEN 1 WHEN 'b' THEN 2 WHEN NULL THEN 3 END AS kcode,
         CASE WHEN flag THEN d ELSE g END AS dg,
         CASE WHEN x > 0 THEN x WHEN x < 0 THEN -x END AS absx
  FROM ev;

-- entry: conditional_functions
-- COALESCE, IFNULL, NULLIF, IF, GREATEST and LEAST (NULL if any argument
-- is NULL).
CREATE MATERIALIZED VIEW v AS
  SELECT id, COALESCE(g, d, -1) AS c1, COALESCE(s, k, 'none') AS c2, IFNULL(x, 0) AS c3,
         NULLIF(g, 0) AS c4, NULLIF(k, '') AS c5, IF(flag, 'yes', 'no') AS c6, IF(g > 0, g, -g) AS c7,
         GREATEST(g, 0) AS c8, LEAST(g, x, d) AS c9, GREATEST(k, 'b') AS c10
  FROM ev;

-- entry: casts
-- CAST to integers rounds half away from zero (MySQL), to DOUBLE, to
-- DECIMAL with rounding, integers to VARCHAR, and DATE of a timestamp.
CREATE MATERIALIZED VIEW v AS
  SELECT id, CAST(d AS BIGINT) AS d_int, CAST(g AS DOUBLE) AS g_dbl, CAST(d AS DECIMAL(10,1)) AS d1,
         CAST(g AS VARCHAR) AS g_str, CAST(g * 1000 + 7 AS DECIMAL(12,2)) AS g_dec,
         CAST(ts AS DATE) AS ts_day, CAST(x * 3 AS BIGINT) AS x3
  FROM ev;
