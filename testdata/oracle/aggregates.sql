-- Aggregations kept up to date as rows arrive: every aggregate, GROUP BY
-- and HAVING, DISTINCT. Over streams the groups only grow; over tables and
-- views (see tables.sql, views.sql) they also shrink.

-- entry: agg_by_channel
-- The basic five aggregates per group.
CREATE MATERIALIZED VIEW v AS
  SELECT channel, COUNT(*) AS n, SUM(price) AS total, MIN(price) AS lo, MAX(price) AS hi, AVG(price) AS mean
  FROM bid GROUP BY channel;

-- entry: agg_nulls_and_skew
-- COUNT(*) against COUNT(x) (NULLs not counted); the NULL key and the
-- empty-string key are groups of their own; one key holds half the rows.
CREATE MATERIALIZED VIEW v AS
  SELECT k, COUNT(*) AS n, COUNT(g) AS ng, COUNT(x) AS nx, SUM(g) AS sg, SUM(x) AS sx, SUM(d) AS sd,
         AVG(x) AS ax, AVG(d) AS ad, MIN(d) AS lo, MAX(x) AS hi
  FROM ev GROUP BY k;

-- entry: agg_distinct
-- COUNT(DISTINCT) and SUM(DISTINCT) ignore duplicates and NULLs.
CREATE MATERIALIZED VIEW v AS
  SELECT k, COUNT(DISTINCT g) AS dg, COUNT(DISTINCT s) AS ds, SUM(DISTINCT g) AS sdg, COUNT(DISTINCT flag) AS df
  FROM ev GROUP BY k;

-- entry: agg_distinct_filtered
-- DISTINCT aggregates of one column, plain and filtered with CASE WHEN
-- (Nexmark's q15 and q16): over an append-only stream they share one set
-- per group, with a bit per aggregate. Integers, doubles, decimals and
-- strings; a filter that keeps NULLs out, one whose ELSE is not NULL, and
-- SUM and AVG beside COUNT.
CREATE MATERIALIZED VIEW v AS
  SELECT k, COUNT(DISTINCT g) AS dg, COUNT(DISTINCT CASE WHEN flag THEN g END) AS dg_flag,
         COUNT(DISTINCT CASE WHEN x > 0 THEN g END) AS dg_pos, SUM(DISTINCT CASE WHEN x > 0 THEN g END) AS sg_pos,
         COUNT(DISTINCT CASE WHEN x > 0 THEN g ELSE -1 END) AS dg_else,
         COUNT(DISTINCT x) AS dx, COUNT(DISTINCT CASE WHEN flag THEN x END) AS dx_flag,
         AVG(DISTINCT CASE WHEN g > 0 THEN x END) AS ax_pos,
         COUNT(DISTINCT d) AS dd, SUM(DISTINCT CASE WHEN flag THEN d END) AS sd_flag,
         COUNT(DISTINCT s) AS ds, COUNT(DISTINCT CASE WHEN g > 0 THEN s END) AS ds_pos
  FROM ev GROUP BY k;

-- entry: count_distinct_per_auction
CREATE MATERIALIZED VIEW v AS
  SELECT auction, COUNT(DISTINCT bidder) AS bidders, COUNT(DISTINCT channel) AS channels, COUNT(*) AS bids
  FROM bid GROUP BY auction;

-- entry: agg_global
-- A global aggregate: one row, changed by every batch.
CREATE MATERIALIZED VIEW v AS
  SELECT COUNT(*) AS n, COUNT(DISTINCT k) AS nkeys, SUM(x) AS sx, AVG(d) AS ad, MIN(s) AS min_s,
         MAX(s) AS max_s, MIN(ts) AS first_ts, MAX(day) AS last_day, SUM(g) AS sg
  FROM ev;

-- entry: agg_global_no_rows
-- A global aggregate over no rows is one row of COUNT 0 and NULLs, also
-- in a view that never sees a row.
CREATE MATERIALIZED VIEW v AS
  SELECT COUNT(*) AS n, COUNT(price) AS np, SUM(price) AS s, MAX(channel) AS c, AVG(price) AS a
  FROM bid WHERE price < 0;

-- entry: agg_two_keys_having
-- GROUP BY two columns with HAVING on an aggregate that is not selected.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, channel, COUNT(*) AS n, SUM(price) AS total
  FROM bid GROUP BY auction, channel HAVING MAX(price) > 5000 AND COUNT(*) >= 3;

-- entry: agg_having_alias
-- HAVING on a select-list alias and on a grouping column.
CREATE MATERIALIZED VIEW v AS
  SELECT bidder, SUM(price) AS total, COUNT(*) AS n
  FROM bid GROUP BY bidder HAVING total > 60000 OR bidder < 3;

-- entry: agg_expression_keys
-- Grouping by expressions: a price band, the minute of the bid, a boolean.
CREATE MATERIALIZED VIEW v AS
  SELECT price DIV 1000 AS band, EXTRACT(MINUTE FROM date_time) AS minute, price > 5000 AS big,
         COUNT(*) AS n, MIN(date_time) AS first_bid, MAX(url) AS last_url
  FROM bid GROUP BY price DIV 1000, EXTRACT(MINUTE FROM date_time), price > 5000;

-- entry: agg_group_by_position
-- GROUP BY a select-list position and an alias.
CREATE MATERIALIZED VIEW v AS
  SELECT UPPER(channel) AS ch, bidder % 5 AS b5, COUNT(*) AS n FROM bid GROUP BY 1, b5;

-- entry: agg_of_expressions
-- Aggregates of expressions and expressions of aggregates.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, SUM(price * 2 + 1) AS s, MAX(price) - MIN(price) AS spread,
         SUM(price) / COUNT(*) AS mean, COUNT(*) * 10 + COUNT(DISTINCT bidder) AS mix,
         SUM(CASE WHEN channel = 'apple' THEN price ELSE 0 END) AS apple_total,
         COUNT(CASE WHEN price < 1000 THEN 1 END) AS cheap
  FROM bid GROUP BY auction;

-- entry: agg_decimal_double
-- SUM and AVG of DECIMAL are exact in eddy; of DOUBLE approximate.
CREATE MATERIALIZED VIEW v AS
  SELECT g, SUM(d) AS sd, AVG(d) AS ad, SUM(x) AS sx, AVG(x) AS ax, SUM(d * g) AS sdg, MIN(x) AS lo
  FROM ev GROUP BY g;

-- entry: agg_min_max_text_time
-- MIN and MAX over strings (byte order: 'Apple' < 'apple') and times.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, MIN(channel) AS c1, MAX(channel) AS c2, MIN(date_time) AS t1, MAX(date_time) AS t2
  FROM bid GROUP BY auction;

-- entry: agg_by_date
-- Groups keyed by dates: the DATE of a timestamp (on both sides of the
-- epoch) and a DATE column.
CREATE MATERIALIZED VIEW by_ts AS
  SELECT DATE(ts) AS day, COUNT(*) AS n, MIN(ts) AS first_ts FROM ev GROUP BY DATE(ts);
CREATE MATERIALIZED VIEW by_day AS
  SELECT day, COUNT(*) AS n, SUM(g) AS sg FROM ev GROUP BY day;

-- entry: select_distinct
-- SELECT DISTINCT over expressions and with NULLs (equal for DISTINCT).
CREATE MATERIALIZED VIEW bids AS SELECT DISTINCT channel, auction % 3 AS a3 FROM bid;
CREATE MATERIALIZED VIEW evs AS SELECT DISTINCT k, flag, g > 0 AS pos FROM ev;
