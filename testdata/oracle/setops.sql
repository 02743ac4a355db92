-- INTERSECT and EXCEPT, DISTINCT (the default) and ALL, alone, chained
-- and mixed with UNION, over streams, tables and views that retract.
-- SQLite has no INTERSECT ALL or EXCEPT ALL: their SQLite queries number
-- the copies of each row (ROW_NUMBER() OVER (PARTITION BY every column))
-- and take the DISTINCT set operation of (row, copy number), which keeps
-- min(m, n) copies for INTERSECT ALL and max(m - n, 0) for EXCEPT ALL.
-- SQLite also gives every set operator the same precedence, left to
-- right, while eddy (as MySQL) binds INTERSECT tighter than UNION and
-- EXCEPT: queries that mix them carry their SQLite query.

-- entry: intersect_distinct_streams
-- needs: setop
-- Bidders who bid high and bid on the apple channel; pairs seen both
-- cheap and dear.
CREATE MATERIALIZED VIEW both_ways AS
  SELECT bidder FROM bid WHERE price > 5000 INTERSECT SELECT bidder FROM bid WHERE channel = 'apple';
CREATE MATERIALIZED VIEW cheap_and_dear AS
  SELECT auction, channel FROM bid WHERE price < 500
  INTERSECT DISTINCT
  SELECT auction, channel FROM bid WHERE price > 20000;

-- entry: except_distinct_streams
-- needs: setop
-- A row of the left input leaves as soon as the right one sees it.
CREATE MATERIALIZED VIEW never_high AS
  SELECT bidder FROM bid EXCEPT SELECT bidder FROM bid WHERE price > 50000;
CREATE MATERIALIZED VIEW not_by_top_bidders AS
  SELECT auction, channel FROM bid EXCEPT DISTINCT SELECT auction, channel FROM bid WHERE bidder <= 5;

-- entry: intersect_all_streams
-- needs: setop
-- Copies count: min(m, n) of each row, NULL keys equal to each other.
CREATE MATERIALIZED VIEW pairs AS
  SELECT channel, auction FROM bid WHERE price > 1000
  INTERSECT ALL
  SELECT channel, auction FROM bid WHERE bidder < 30;
-- sqlite pairs:
SELECT channel, auction FROM (
  SELECT channel, auction, ROW_NUMBER() OVER (PARTITION BY channel, auction) AS r FROM bid WHERE price > 1000
  INTERSECT
  SELECT channel, auction, ROW_NUMBER() OVER (PARTITION BY channel, auction) AS r FROM bid WHERE bidder < 30);
CREATE MATERIALIZED VIEW ev_keys AS
  SELECT k FROM ev WHERE g > 0 INTERSECT ALL SELECT k FROM ev WHERE x < 0;
-- sqlite ev_keys:
SELECT k FROM (
  SELECT k, ROW_NUMBER() OVER (PARTITION BY k) AS r FROM ev WHERE g > 0
  INTERSECT
  SELECT k, ROW_NUMBER() OVER (PARTITION BY k) AS r FROM ev WHERE x < 0);

-- entry: except_all_streams
-- needs: setop
-- max(m - n, 0) copies: each matching right row removes one left copy.
CREATE MATERIALIZED VIEW pairs AS
  SELECT channel, auction FROM bid EXCEPT ALL SELECT channel, auction FROM bid WHERE price > 3000;
-- sqlite pairs:
SELECT channel, auction FROM (
  SELECT channel, auction, ROW_NUMBER() OVER (PARTITION BY channel, auction) AS r FROM bid
  EXCEPT
  SELECT channel, auction, ROW_NUMBER() OVER (PARTITION BY channel, auction) AS r FROM bid WHERE price > 3000);
CREATE MATERIALIZED VIEW ev_pairs AS
  SELECT k, g FROM ev EXCEPT ALL SELECT k, g FROM ev WHERE flag;
-- sqlite ev_pairs:
SELECT k, g FROM (
  SELECT k, g, ROW_NUMBER() OVER (PARTITION BY k, g) AS r FROM ev
  EXCEPT
  SELECT k, g, ROW_NUMBER() OVER (PARTITION BY k, g) AS r FROM ev WHERE flag);

-- entry: setop_nulls
-- needs: setop
-- NULLs are not distinct in set operations: a (NULL, 3) row meets
-- another (NULL, 3) row.
CREATE MATERIALIZED VIEW in_both AS
  SELECT k, g FROM ev WHERE x > 0 INTERSECT SELECT k, g FROM ev WHERE d < 0;
CREATE MATERIALIZED VIEW only_left AS
  SELECT k, g FROM ev WHERE x > 0 EXCEPT SELECT k, g FROM ev WHERE d < 0;
CREATE MATERIALIZED VIEW strings AS
  SELECT s, flag FROM ev WHERE id % 2 = 0 INTERSECT SELECT s, flag FROM ev WHERE id % 2 = 1;

-- entry: setop_over_aggregates
-- needs: setop
-- Inputs that retract: an auction with 10 to 30 bids leaves `mid` when
-- its 31st bid arrives; `rich` only grows. Rows of the set operations
-- come and go as their inputs change.
CREATE MATERIALIZED VIEW mid AS
  SELECT auction FROM bid GROUP BY auction HAVING COUNT(*) BETWEEN 10 AND 30;
CREATE MATERIALIZED VIEW rich AS
  SELECT auction FROM bid GROUP BY auction HAVING MAX(price) > 30000;
CREATE MATERIALIZED VIEW mid_and_rich AS SELECT auction FROM mid INTERSECT SELECT auction FROM rich;
CREATE MATERIALIZED VIEW mid_not_rich AS SELECT auction FROM mid EXCEPT SELECT auction FROM rich;
CREATE MATERIALIZED VIEW rich_not_mid AS SELECT auction FROM rich EXCEPT SELECT auction FROM mid;

-- entry: setop_over_aggregate_values
-- needs: setop
-- Aggregate values as rows: counts per bidder that also occur as counts
-- per auction, and with multiplicity.
CREATE MATERIALIZED VIEW per_bidder AS SELECT bidder, COUNT(*) AS n FROM bid GROUP BY bidder;
CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;
CREATE MATERIALIZED VIEW shared_counts AS SELECT n FROM per_bidder INTERSECT SELECT n FROM per_auction;
CREATE MATERIALIZED VIEW bidder_counts_left AS SELECT n FROM per_bidder EXCEPT ALL SELECT n FROM per_auction;
-- sqlite bidder_counts_left:
SELECT n FROM (
  SELECT n, ROW_NUMBER() OVER (PARTITION BY n) AS r FROM per_bidder
  EXCEPT
  SELECT n, ROW_NUMBER() OVER (PARTITION BY n) AS r FROM per_auction);
CREATE MATERIALIZED VIEW shared_counts_all AS SELECT n FROM per_bidder INTERSECT ALL SELECT n FROM per_auction;
-- sqlite shared_counts_all:
SELECT n FROM (
  SELECT n, ROW_NUMBER() OVER (PARTITION BY n) AS r FROM per_bidder
  INTERSECT
  SELECT n, ROW_NUMBER() OVER (PARTITION BY n) AS r FROM per_auction);

-- entry: setop_over_tables
-- needs: setop
-- Tables retract on every upsert: people move between cities and states,
-- go inactive and come back, auctions change sellers' sides.
CREATE MATERIALIZED VIEW mixed_cities AS
  SELECT city FROM person WHERE active INTERSECT SELECT city FROM person WHERE NOT active;
CREATE MATERIALIZED VIEW poor_states AS
  SELECT state FROM person EXCEPT SELECT state FROM person WHERE credit > 9500;
CREATE MATERIALIZED VIEW active_non_sellers AS
  SELECT id FROM person WHERE active EXCEPT ALL SELECT seller FROM auction;
-- sqlite active_non_sellers:
SELECT id FROM (
  SELECT id, ROW_NUMBER() OVER (PARTITION BY id) AS r FROM person WHERE active
  EXCEPT
  SELECT seller, ROW_NUMBER() OVER (PARTITION BY seller) AS r FROM auction);
CREATE MATERIALIZED VIEW active_sellers AS
  SELECT seller FROM auction INTERSECT ALL SELECT id FROM person WHERE active;
-- sqlite active_sellers:
SELECT seller FROM (
  SELECT seller, ROW_NUMBER() OVER (PARTITION BY seller) AS r FROM auction
  INTERSECT
  SELECT id, ROW_NUMBER() OVER (PARTITION BY id) AS r FROM person WHERE active);

-- entry: setop_table_and_stream
-- needs: setop
-- A stream against a table: bidders who are active people, and bids'
-- auctions that do not exist (yet).
CREATE MATERIALIZED VIEW active_bidders AS
  SELECT bidder FROM bid INTERSECT SELECT id FROM person WHERE active;
CREATE MATERIALIZED VIEW unknown_auctions AS
  SELECT auction FROM bid EXCEPT SELECT id FROM auction;
CREATE MATERIALIZED VIEW unknown_auction_bids AS
  SELECT auction FROM bid EXCEPT ALL SELECT id FROM auction;
-- sqlite unknown_auction_bids:
SELECT auction FROM (
  SELECT auction, ROW_NUMBER() OVER (PARTITION BY auction) AS r FROM bid
  EXCEPT
  SELECT id, ROW_NUMBER() OVER (PARTITION BY id) AS r FROM auction);

-- entry: setop_left_to_right
-- needs: setop, union
-- UNION, UNION ALL and EXCEPT have the same precedence, left to right,
-- in eddy and SQLite alike.
CREATE MATERIALIZED VIEW union_except AS
  SELECT bidder AS id FROM bid WHERE price > 50000
  UNION
  SELECT id FROM person WHERE active
  EXCEPT
  SELECT seller FROM auction;
CREATE MATERIALIZED VIEW union_all_except AS
  SELECT auction AS id FROM bid WHERE price > 90000
  UNION ALL
  SELECT id FROM auction WHERE reserve > 2000
  EXCEPT
  SELECT auction FROM bid WHERE bidder = 3;
CREATE MATERIALIZED VIEW except_union AS
  SELECT bidder AS id FROM bid EXCEPT SELECT id FROM person UNION SELECT seller FROM auction;

-- entry: setop_intersect_binds_tighter
-- needs: setop, union
-- A UNION B INTERSECT C is A UNION (B INTERSECT C) in eddy, as in MySQL
-- and the SQL standard; SQLite reads it left to right, so it gets the
-- grouping spelled out.
CREATE MATERIALIZED VIEW u_i AS
  SELECT bidder AS id FROM bid WHERE price > 80000
  UNION
  SELECT id FROM person WHERE active
  INTERSECT
  SELECT seller FROM auction;
-- sqlite u_i:
SELECT bidder AS id FROM bid WHERE price > 80000
UNION
SELECT * FROM (SELECT id FROM person WHERE active INTERSECT SELECT seller FROM auction);
CREATE MATERIALIZED VIEW e_i AS
  SELECT bidder AS id FROM bid WHERE channel = 'google'
  EXCEPT
  SELECT id FROM person WHERE active
  INTERSECT
  SELECT seller FROM auction;
-- sqlite e_i:
SELECT bidder AS id FROM bid WHERE channel = 'google'
EXCEPT
SELECT * FROM (SELECT id FROM person WHERE active INTERSECT SELECT seller FROM auction);
CREATE MATERIALIZED VIEW i_u AS
  SELECT id FROM person WHERE active
  INTERSECT
  SELECT seller FROM auction
  UNION ALL
  SELECT bidder FROM bid WHERE price > 95000;
-- sqlite i_u:
SELECT * FROM (SELECT id FROM person WHERE active INTERSECT SELECT seller FROM auction)
UNION ALL
SELECT bidder FROM bid WHERE price > 95000;

-- entry: setop_parenthesized
-- needs: setop, union
-- Parentheses group a set operation as a derived table does.
CREATE MATERIALIZED VIEW grouped AS
  SELECT id FROM (
    SELECT bidder AS id FROM bid WHERE price > 80000
    UNION
    SELECT id FROM person WHERE active) AS u
  INTERSECT
  SELECT seller FROM auction;
CREATE MATERIALIZED VIEW nested AS
  SELECT n FROM (SELECT auction AS n FROM bid EXCEPT SELECT id FROM auction) AS a
  EXCEPT
  SELECT n FROM (SELECT auction AS n FROM bid WHERE price > 90000) AS b;

-- entry: setop_chains
-- needs: setop
-- Three inputs: INTERSECT of all three, EXCEPT of two from one.
CREATE MATERIALIZED VIEW all_three AS
  SELECT bidder FROM bid WHERE channel = 'apple'
  INTERSECT SELECT bidder FROM bid WHERE channel = 'google'
  INTERSECT SELECT bidder FROM bid WHERE channel = 'facebook';
CREATE MATERIALIZED VIEW neither AS
  SELECT bidder FROM bid
  EXCEPT SELECT bidder FROM bid WHERE channel = 'Apple'
  EXCEPT SELECT bidder FROM bid WHERE price > 90000;
CREATE MATERIALIZED VIEW all_chain AS
  SELECT channel FROM bid WHERE price > 500
  EXCEPT ALL SELECT channel FROM bid WHERE price > 1000
  EXCEPT ALL SELECT channel FROM bid WHERE price < 100;
-- sqlite all_chain:
SELECT channel FROM (
  SELECT channel, ROW_NUMBER() OVER (PARTITION BY channel) AS r FROM (
    SELECT channel FROM (
      SELECT channel, ROW_NUMBER() OVER (PARTITION BY channel) AS r FROM bid WHERE price > 500
      EXCEPT
      SELECT channel, ROW_NUMBER() OVER (PARTITION BY channel) AS r FROM bid WHERE price > 1000))
  EXCEPT
  SELECT channel, ROW_NUMBER() OVER (PARTITION BY channel) AS r FROM bid WHERE price < 100);

-- entry: setop_aggregated
-- needs: setop
-- Aggregates over a set operation's rows.
CREATE MATERIALIZED VIEW n_common AS
  SELECT COUNT(*) AS n FROM (
    SELECT bidder FROM bid WHERE price > 5000 INTERSECT SELECT bidder FROM bid WHERE price < 100) AS t;
CREATE MATERIALIZED VIEW per_channel_left AS
  SELECT channel, COUNT(*) AS n, MIN(auction) AS lo FROM (
    SELECT channel, auction FROM bid EXCEPT ALL SELECT channel, auction FROM bid WHERE bidder % 2 = 0) AS t
  GROUP BY channel;
-- sqlite per_channel_left:
SELECT channel, COUNT(*) AS n, MIN(auction) AS lo FROM (
  SELECT channel, auction, ROW_NUMBER() OVER (PARTITION BY channel, auction) AS r FROM bid
  EXCEPT
  SELECT channel, auction, ROW_NUMBER() OVER (PARTITION BY channel, auction) AS r FROM bid WHERE bidder % 2 = 0)
GROUP BY channel;

-- entry: setop_view_chain
-- needs: setop, semi_join
-- A set operation as a view that other views read, filtered and joined.
CREATE MATERIALIZED VIEW loners AS
  SELECT bidder FROM bid EXCEPT SELECT bidder FROM bid WHERE channel IN ('Apple', 'nowhere');
CREATE MATERIALIZED VIEW loner_totals AS
  SELECT b.bidder, SUM(b.price) AS total FROM bid AS b WHERE b.bidder IN (SELECT bidder FROM loners) GROUP BY b.bidder;
CREATE MATERIALIZED VIEW n_loners AS SELECT COUNT(*) AS n FROM loners;

-- entry: setop_expressions
-- needs: setop
-- Computed rows, of several types: buckets of prices, hours of times,
-- rounded decimals.
CREATE MATERIALIZED VIEW buckets AS
  SELECT price DIV 1000 AS b, channel FROM bid WHERE bidder < 20
  INTERSECT
  SELECT price DIV 1000, channel FROM bid WHERE bidder >= 40;
CREATE MATERIALIZED VIEW ev_days AS
  SELECT day, k FROM ev WHERE g >= 0 EXCEPT SELECT day, k FROM ev WHERE x >= 0;
CREATE MATERIALIZED VIEW ev_signs AS
  SELECT d > 0 AS pos, flag FROM ev INTERSECT ALL SELECT x > 0, flag FROM ev WHERE g IS NOT NULL;
-- sqlite ev_signs:
SELECT pos, flag FROM (
  SELECT d > 0 AS pos, flag, ROW_NUMBER() OVER (PARTITION BY d > 0, flag) AS r FROM ev
  INTERSECT
  SELECT x > 0, flag, ROW_NUMBER() OVER (PARTITION BY x > 0, flag) AS r FROM ev WHERE g IS NOT NULL);

-- entry: setop_over_windows
-- needs: setop, window
-- Windowed counts on two channels: the counts both channels saw in some
-- window, and the windows where apple's count differs from google's.
CREATE MATERIALIZED VIEW same_counts AS
  SELECT COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  WHERE channel = 'apple' GROUP BY window_start, window_end
  INTERSECT
  SELECT COUNT(*) FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  WHERE channel = 'google' GROUP BY window_start, window_end;
CREATE MATERIALIZED VIEW apple_differs AS
  SELECT window_start, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  WHERE channel = 'apple' GROUP BY window_start, window_end
  EXCEPT
  SELECT window_start, COUNT(*) FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  WHERE channel = 'google' GROUP BY window_start, window_end;

-- entry: setop_joined_restricted
-- needs: setop, join
-- A set operation joined on a key the query restricts: the restriction is
-- carried across the join into the operation and down both its inputs
-- (this once kept the optimizer from reaching its fixed point).
CREATE MATERIALIZED VIEW hot_auctions AS
  SELECT b.auction, COUNT(*) AS n FROM bid AS b
  JOIN (SELECT id FROM auction INTERSECT SELECT auction FROM bid WHERE price > 50000) AS d ON b.auction = d.id
  WHERE b.auction > 1005 GROUP BY b.auction;
CREATE MATERIALIZED VIEW active_non_sellers AS
  SELECT p.id, p.name FROM person AS p
  JOIN (SELECT id FROM person WHERE active EXCEPT SELECT seller FROM auction) AS d ON p.id = d.id
  WHERE p.id < 40;
