-- Group keys of every type, through the hash exchange that splits groups
-- among parallel instances: equal keys must meet in one group however
-- they are represented, and different keys must not collide.

-- entry: key_negative_zero
-- 0.0 and -0.0 are equal doubles: one group, one DISTINCT value.
CREATE MATERIALIZED VIEW by_zero AS
  SELECT CAST(g AS DOUBLE) * 0e0 AS z, COUNT(*) AS n FROM ev GROUP BY CAST(g AS DOUBLE) * 0e0;
CREATE MATERIALIZED VIEW distinct_zero AS
  SELECT DISTINCT CAST(g AS DOUBLE) * 0e0 AS z FROM ev;
CREATE MATERIALIZED VIEW count_zero AS
  SELECT COUNT(DISTINCT CAST(g AS DOUBLE) * 0e0) AS zeros FROM ev;

-- entry: key_null_vs_empty
-- Composite keys where NULL, '' and FALSE must stay apart: (NULL, '') is
-- not ('', NULL), and a NULL flag is not FALSE.
CREATE MATERIALIZED VIEW ks AS
  SELECT k, s, COUNT(*) AS n FROM ev GROUP BY k, s;
CREATE MATERIALIZED VIEW sk AS
  SELECT s, k, flag, COUNT(*) AS n FROM ev GROUP BY s, k, flag;
CREATE MATERIALIZED VIEW gflag AS
  SELECT g, flag, COUNT(*) AS n FROM ev GROUP BY g, flag;

-- entry: key_decimal_time_date
-- DECIMAL, TIMESTAMP and DATE keys, and a DOUBLE key.
CREATE MATERIALIZED VIEW by_dec AS
  SELECT ROUND(d, 0) AS rd, COUNT(*) AS n, SUM(d) AS sd FROM ev GROUP BY ROUND(d, 0);
CREATE MATERIALIZED VIEW by_time AS
  SELECT DATE(date_time) AS day, date_time - INTERVAL '0' SECOND AS t, COUNT(*) AS n
  FROM bid WHERE bidder = 1 GROUP BY DATE(date_time), date_time - INTERVAL '0' SECOND;
CREATE MATERIALIZED VIEW by_double AS
  SELECT FLOOR(x / 10) AS bucket, COUNT(*) AS n FROM ev GROUP BY FLOOR(x / 10);

-- entry: key_multibyte_text
-- Multi-byte strings as keys, in MIN/MAX (byte order) and LIKE ('_' is
-- one character).
CREATE MATERIALIZED VIEW v AS
  SELECT s, COUNT(*) AS n, MIN(k) AS k1, MAX(CONCAT(s, k)) AS sk, CHAR_LENGTH(s) AS chars, LENGTH(s) AS bytes,
         s LIKE 'na_ve%' AS like_one, s LIKE '日_語' AS like_cjk
  FROM ev GROUP BY s;

-- entry: boolean_min_max
-- MIN, MAX and COUNT over BOOLEAN values.
CREATE MATERIALIZED VIEW v AS
  SELECT k, MIN(flag) AS all_true, MAX(flag) AS any_true, COUNT(flag) AS known, COUNT(DISTINCT flag) AS kinds
  FROM ev GROUP BY k;

-- entry: boolean_sum_avg
-- SUM and AVG over BOOLEAN values: in MySQL a BOOLEAN is a number (TRUE
-- is 1), so SUM counts the true ones and AVG is their share.
CREATE MATERIALIZED VIEW v AS
  SELECT k, SUM(flag) AS trues, AVG(flag) AS share FROM ev GROUP BY k;

-- entry: decimal_sum_growth
-- SUM of a DECIMAL(8,3) column over many rows exceeds DECIMAL(8,3) (MySQL
-- widens the result's precision); products of decimals add their scales.
CREATE MATERIALIZED VIEW v AS
  SELECT SUM(ABS(d)) AS total, SUM(d * d) AS squares, MAX(d * d) AS top_square, SUM(d * 1000) AS scaled,
         MIN(d / 7) AS seventh
  FROM ev;
