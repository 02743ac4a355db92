-- Window functions (OVER clauses) in materialized views: ranking, NTILE,
-- LAG and LEAD, FIRST_VALUE, LAST_VALUE and NTH_VALUE, and aggregates over
-- ROWS, RANGE and GROUPS frames, including frames that end after the
-- current row, over streams (rows arrive slightly out of order, so later
-- rows change earlier rows' results) and over inputs that retract (tables,
-- aggregates). Results must not depend on how peers are ordered: the
-- functions that depend on a row's position (ROW_NUMBER, NTILE, LAG, LEAD,
-- the value functions, ROWS frames) order by unique keys (a bid's
-- date_time, an ev id, a person id as a tie-breaker); RANK, DENSE_RANK,
-- PERCENT_RANK, CUME_DIST and RANGE or GROUPS frames may order by keys
-- with ties, since peers share their results.

-- entry: wf_row_number_stream
-- needs: window_func
-- ROW_NUMBER over every row, not filtered to a Top-N: a bid that arrives
-- late renumbers the bids after it in its partition.
CREATE MATERIALIZED VIEW per_auction AS
  SELECT auction, date_time, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY date_time) AS rn FROM bid;
CREATE MATERIALIZED VIEW per_bidder_desc AS
  SELECT bidder, date_time, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY price DESC, date_time) AS rn FROM bid;

-- entry: wf_ranks_with_ties
-- needs: window_func
-- RANK leaves gaps after ties, DENSE_RANK does not; prices of an auction
-- tie in their thousands.
CREATE MATERIALIZED VIEW ranks AS
  SELECT auction, date_time, price DIV 1000 AS k,
         RANK() OVER (PARTITION BY auction ORDER BY price DIV 1000 DESC) AS r,
         DENSE_RANK() OVER (PARTITION BY auction ORDER BY price DIV 1000 DESC) AS dr
  FROM bid;
CREATE MATERIALIZED VIEW channel_ranks AS
  SELECT channel, bidder, date_time, RANK() OVER (PARTITION BY channel, bidder ORDER BY auction) AS r FROM bid;

-- entry: wf_percent_rank_cume_dist
-- needs: window_func
-- (rank - 1) / (rows - 1) and the share of rows at or before a row's
-- peers: every arriving row changes its partition's values.
CREATE MATERIALIZED VIEW dist AS
  SELECT auction, date_time,
         PERCENT_RANK() OVER (PARTITION BY auction ORDER BY price) AS pr,
         CUME_DIST() OVER (PARTITION BY auction ORDER BY price) AS cd
  FROM bid;
CREATE MATERIALIZED VIEW ev_dist AS
  SELECT id, k, g, PERCENT_RANK() OVER (PARTITION BY k ORDER BY g) AS pr,
         CUME_DIST() OVER (PARTITION BY k ORDER BY g DESC) AS cd
  FROM ev;

-- entry: wf_ntile
-- needs: window_func
-- NTILE splits each partition into n buckets whose sizes differ by at
-- most one, the larger first.
CREATE MATERIALIZED VIEW quartiles AS
  SELECT bidder, date_time, NTILE(4) OVER (PARTITION BY bidder ORDER BY price, date_time) AS q FROM bid;
CREATE MATERIALIZED VIEW thirds AS
  SELECT id, k, NTILE(3) OVER (PARTITION BY k ORDER BY id DESC) AS t FROM ev;

-- entry: wf_lag_lead
-- needs: window_func
-- LAG and LEAD with offsets and defaults, on several types.
CREATE MATERIALIZED VIEW steps AS
  SELECT auction, date_time, price,
         LAG(price) OVER (PARTITION BY auction ORDER BY date_time) AS prev,
         LEAD(price) OVER (PARTITION BY auction ORDER BY date_time) AS next,
         LAG(price, 2, -1) OVER (PARTITION BY auction ORDER BY date_time) AS prev2,
         LEAD(price, 3, 0) OVER (PARTITION BY auction ORDER BY date_time) AS next3
  FROM bid;
CREATE MATERIALIZED VIEW ev_steps AS
  SELECT id, k, LAG(s, 1, 'none') OVER (PARTITION BY k ORDER BY id) AS prev_s,
         LEAD(x, 2) OVER (PARTITION BY k ORDER BY id) AS next_x,
         LAG(ts) OVER (PARTITION BY k ORDER BY id) AS prev_ts,
         LEAD(d, 1, 0) OVER (ORDER BY id) AS next_d
  FROM ev;

-- entry: wf_lag_differences
-- needs: window_func
-- The difference to the previous bid of the same bidder, and the time
-- since it, aggregated per bidder.
CREATE MATERIALIZED VIEW gaps AS
  SELECT bidder, date_time, price - LAG(price, 1, 0) OVER (PARTITION BY bidder ORDER BY date_time) AS delta,
         TIMESTAMPDIFF(SECOND, LAG(date_time) OVER (PARTITION BY bidder ORDER BY date_time), date_time) AS secs
  FROM bid;
-- sqlite gaps:
SELECT bidder, date_time, price - LAG(price, 1, 0) OVER (PARTITION BY bidder ORDER BY date_time) AS delta,
       (date_time - LAG(date_time) OVER (PARTITION BY bidder ORDER BY date_time)) / 1000 AS secs
FROM bid;
CREATE MATERIALIZED VIEW gap_stats AS
  SELECT bidder, MAX(secs) AS longest, SUM(delta) AS net, COUNT(secs) AS n FROM gaps GROUP BY bidder;

-- entry: wf_first_last_nth
-- needs: window_func
-- Value functions over the default frame (to the current row), over the
-- whole partition and over a sliding frame.
CREATE MATERIALIZED VIEW running AS
  SELECT auction, date_time,
         FIRST_VALUE(price) OVER (PARTITION BY auction ORDER BY date_time) AS first_price,
         LAST_VALUE(price) OVER (PARTITION BY auction ORDER BY date_time) AS this_price,
         NTH_VALUE(bidder, 2) OVER (PARTITION BY auction ORDER BY date_time) AS second_bidder
  FROM bid;
CREATE MATERIALIZED VIEW whole AS
  SELECT auction, date_time,
         LAST_VALUE(price) OVER (PARTITION BY auction ORDER BY date_time
           ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last_price,
         NTH_VALUE(price, 3) OVER (PARTITION BY auction ORDER BY date_time
           ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS third_price
  FROM bid;
CREATE MATERIALIZED VIEW sliding AS
  SELECT id, k, FIRST_VALUE(g) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS fv,
         LAST_VALUE(s) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) AS lv,
         NTH_VALUE(x, 2) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS nv
  FROM ev;

-- entry: wf_rows_frames
-- needs: window_func
-- Moving aggregates over ROWS frames, some ending after the current row.
CREATE MATERIALIZED VIEW moving AS
  SELECT auction, date_time,
         SUM(price) OVER (PARTITION BY auction ORDER BY date_time ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS sum3,
         AVG(price) OVER (PARTITION BY auction ORDER BY date_time ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS avg3,
         MAX(price) OVER (PARTITION BY auction ORDER BY date_time ROWS BETWEEN CURRENT ROW AND 3 FOLLOWING) AS max_ahead,
         COUNT(*) OVER (PARTITION BY auction ORDER BY date_time ROWS BETWEEN 5 PRECEDING AND 2 PRECEDING) AS n_before
  FROM bid;
CREATE MATERIALIZED VIEW ev_moving AS
  SELECT id, k, SUM(g) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS ahead,
         MIN(x) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) AS lo,
         COUNT(d) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS rest
  FROM ev;

-- entry: wf_range_frames
-- needs: window_func
-- RANGE frames: the default (peers included), to the end of the
-- partition, and numeric offsets on a key with ties.
CREATE MATERIALIZED VIEW by_price AS
  SELECT auction, date_time, price DIV 100 AS p,
         SUM(price) OVER (PARTITION BY auction ORDER BY price DIV 100) AS upto,
         COUNT(*) OVER (PARTITION BY auction ORDER BY price DIV 100
           RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS at_or_above,
         COUNT(*) OVER (PARTITION BY auction ORDER BY price DIV 100 RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) AS near
  FROM bid;
CREATE MATERIALIZED VIEW ev_range AS
  SELECT id, k, g, SUM(x) OVER (PARTITION BY k ORDER BY g RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING) AS sx,
         COUNT(*) OVER (PARTITION BY k ORDER BY g RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto
  FROM ev;

-- entry: wf_range_interval
-- needs: window_func
-- RANGE frames over event time with INTERVAL offsets: the bids of the
-- same auction in the 10 seconds before, and around, each bid.
CREATE MATERIALIZED VIEW recent AS
  SELECT auction, date_time,
         COUNT(*) OVER (PARTITION BY auction ORDER BY date_time
           RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS n10,
         MAX(price) OVER (PARTITION BY auction ORDER BY date_time
           RANGE BETWEEN INTERVAL '5' SECOND PRECEDING AND INTERVAL '5' SECOND FOLLOWING) AS hi_around
  FROM bid;
CREATE MATERIALIZED VIEW channel_recent AS
  SELECT channel, date_time, SUM(price) OVER (PARTITION BY channel ORDER BY date_time
           RANGE BETWEEN INTERVAL '3' SECOND PRECEDING AND INTERVAL '1' SECOND PRECEDING) AS before3
  FROM bid;

-- entry: wf_groups_frames
-- needs: window_func
-- GROUPS frames count peer groups, not rows.
CREATE MATERIALIZED VIEW grouped AS
  SELECT auction, date_time, price DIV 1000 AS k,
         COUNT(*) OVER (PARTITION BY auction ORDER BY price DIV 1000 GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS n3,
         SUM(price) OVER (PARTITION BY auction ORDER BY price DIV 1000
           GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS rest
  FROM bid;
CREATE MATERIALIZED VIEW ev_groups AS
  SELECT id, k, g, COUNT(*) OVER (PARTITION BY k ORDER BY g GROUPS BETWEEN 2 PRECEDING AND 1 PRECEDING) AS below,
         MAX(id) OVER (PARTITION BY k ORDER BY g GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS hi
  FROM ev;

-- entry: wf_unpartitioned
-- needs: window_func
-- Windows over the whole input, ordered by time (bids arrive nearly in
-- order, so few rows move).
CREATE MATERIALIZED VIEW stream_order AS
  SELECT date_time, ROW_NUMBER() OVER (ORDER BY date_time) AS rn,
         SUM(price) OVER (ORDER BY date_time ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS s5,
         LAG(auction, 1, 0) OVER (ORDER BY date_time) AS prev_auction
  FROM bid;
CREATE MATERIALIZED VIEW whole_input AS
  SELECT id, COUNT(*) OVER () AS n, SUM(g) OVER () AS total, MAX(ts) OVER () AS latest FROM ev;

-- entry: wf_over_table
-- needs: window_func
-- A table retracts and re-inserts rows on every upsert: ranks, running
-- sums and neighbours of the active people change as credits change and
-- people come and go. (Partitions by a column that upserts change, such
-- as state, are in wf_repartitioned_key.)
CREATE MATERIALIZED VIEW credit_ranks AS
  SELECT id, state, credit,
         RANK() OVER (ORDER BY credit DESC) AS r,
         DENSE_RANK() OVER (ORDER BY city) AS city_rank,
         ROW_NUMBER() OVER (ORDER BY credit, id) AS rn
  FROM person WHERE active;
CREATE MATERIALIZED VIEW credit_neighbours AS
  SELECT id, LAG(id) OVER (ORDER BY credit, id) AS poorer, LEAD(name, 1, '-') OVER (ORDER BY credit, id) AS richer,
         SUM(credit) OVER (ORDER BY credit, id) AS running,
         NTILE(5) OVER (ORDER BY joined, id) AS cohort
  FROM person;
CREATE MATERIALIZED VIEW auction_windows AS
  SELECT id, category, reserve,
         CUME_DIST() OVER (PARTITION BY seller ORDER BY reserve) AS cd,
         FIRST_VALUE(id) OVER (PARTITION BY seller % 3 ORDER BY reserve DESC, id) AS top_id,
         COUNT(reserve) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS near_reserves
  FROM auction;

-- entry: wf_over_aggregate_view
-- needs: window_func
-- Windows over a view of aggregates, which update as bids arrive: ranks
-- of bidders by total, and each bidder's share of the top.
CREATE MATERIALIZED VIEW totals AS SELECT bidder, SUM(price) AS total, COUNT(*) AS n FROM bid GROUP BY bidder;
CREATE MATERIALIZED VIEW ranked AS
  SELECT bidder, total, RANK() OVER (ORDER BY total DESC) AS r, DENSE_RANK() OVER (ORDER BY n DESC) AS nr,
         PERCENT_RANK() OVER (ORDER BY n) AS pr, total * 1.0 / FIRST_VALUE(total) OVER (ORDER BY total DESC, bidder) AS share
  FROM totals;
CREATE MATERIALIZED VIEW top_three AS SELECT bidder, total FROM ranked WHERE r <= 3;

-- entry: wf_over_group_by
-- needs: window_func
-- A window function over the groups of the same SELECT: the auctions
-- ranked by their bid count, and the running count over auctions.
CREATE MATERIALIZED VIEW auction_rank AS
  SELECT auction, COUNT(*) AS n, RANK() OVER (ORDER BY COUNT(*) DESC) AS r,
         SUM(COUNT(*)) OVER (ORDER BY auction) AS running
  FROM bid GROUP BY auction;
CREATE MATERIALIZED VIEW channel_share AS
  SELECT channel, SUM(price) AS total, SUM(price) * 1.0 / SUM(SUM(price)) OVER () AS share
  FROM bid GROUP BY channel;

-- entry: wf_over_windowed_aggregate
-- needs: window_func, window
-- Per 10-second window, each channel's count ranked, and the change from
-- the channel's previous window.
CREATE MATERIALIZED VIEW counts AS
  SELECT channel, window_start, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  GROUP BY channel, window_start, window_end;
CREATE MATERIALIZED VIEW ranked AS
  SELECT channel, window_start, n, RANK() OVER (PARTITION BY window_start ORDER BY n DESC) AS r,
         n - LAG(n, 1, 0) OVER (PARTITION BY channel ORDER BY window_start) AS delta
  FROM counts;

-- entry: wf_rank_filter
-- needs: window_func
-- A filter on RANK (ties kept) and on DENSE_RANK in the query around the
-- window: not a ROW_NUMBER Top-N.
CREATE MATERIALIZED VIEW top_ranked AS
  SELECT auction, price, date_time FROM (
    SELECT auction, price, date_time, RANK() OVER (PARTITION BY auction ORDER BY price DIV 10000 DESC) AS r FROM bid) AS t
  WHERE r = 1;
CREATE MATERIALIZED VIEW dense_two AS
  SELECT k, g, id FROM (
    SELECT k, g, id, DENSE_RANK() OVER (PARTITION BY k ORDER BY g) AS dr FROM ev WHERE g IS NOT NULL) AS t
  WHERE dr <= 2;

-- entry: wf_nulls
-- needs: window_func
-- NULL partition keys form one partition; NULL order keys sort first
-- ascending, last descending, and are peers of each other.
CREATE MATERIALIZED VIEW null_order AS
  SELECT id, k, x, RANK() OVER (PARTITION BY k ORDER BY x) AS r_up, RANK() OVER (PARTITION BY k ORDER BY x DESC) AS r_down,
         SUM(g) OVER (PARTITION BY k ORDER BY x) AS upto
  FROM ev;
CREATE MATERIALIZED VIEW null_values AS
  SELECT id, flag, LAG(g) OVER (PARTITION BY flag ORDER BY id) AS prev_g, COUNT(g) OVER (PARTITION BY flag) AS with_g,
         MIN(d) OVER (PARTITION BY flag ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS lo
  FROM ev;

-- entry: wf_expressions
-- needs: window_func
-- Expressions in PARTITION BY and ORDER BY, window results in expressions,
-- several windows in one select list.
CREATE MATERIALIZED VIEW exprs AS
  SELECT date_time, bidder % 3 AS b3,
         ROW_NUMBER() OVER (PARTITION BY bidder % 3 ORDER BY date_time DESC) * 10 AS rn10,
         CASE WHEN RANK() OVER (PARTITION BY channel ORDER BY price DESC) <= 3 THEN 'top' ELSE 'rest' END AS tier,
         price - AVG(price) OVER (PARTITION BY LOWER(channel)) AS above_mean
  FROM bid;
CREATE MATERIALIZED VIEW ev_exprs AS
  SELECT id, COALESCE(k, '?') AS kk,
         DENSE_RANK() OVER (PARTITION BY COALESCE(k, '?') ORDER BY CHAR_LENGTH(s)) AS len_rank,
         MAX(ABS(g)) OVER (ORDER BY day GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS near_day
  FROM ev;

-- entry: wf_aggregated
-- needs: window_func
-- Aggregates over window results, in a derived table.
CREATE MATERIALIZED VIEW rank_counts AS
  SELECT r, COUNT(*) AS n FROM (
    SELECT RANK() OVER (PARTITION BY auction ORDER BY price DIV 1000 DESC) AS r FROM bid) AS t
  GROUP BY r;
CREATE MATERIALIZED VIEW first_bid_share AS
  SELECT channel, SUM(CASE WHEN rn = 1 THEN 1 ELSE 0 END) AS firsts, COUNT(*) AS n FROM (
    SELECT channel, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY date_time) AS rn FROM bid) AS t
  GROUP BY channel;

-- entry: wf_repartitioned_key
-- needs: window_func
-- A window partitioned by a column that changes for a key of its input
-- (a bidder's latest auction, a person's state): at parallelism 2 and 4 a
-- key's new row may reach the view before its old row leaves (they come
-- from the instances of two partitions); the view once kept the old one
-- (bidder 17 with auction 1022 and its old count instead of 1028).
CREATE MATERIALIZED VIEW latest AS
  SELECT bidder, auction, COUNT(*) OVER (PARTITION BY auction) AS n
  FROM (SELECT bidder, MAX(auction) AS auction FROM bid GROUP BY bidder) AS t;
CREATE MATERIALIZED VIEW latest_rank AS
  SELECT bidder, auction, RANK() OVER (PARTITION BY auction ORDER BY bidder) AS r
  FROM (SELECT bidder, MAX(auction) AS auction FROM bid GROUP BY bidder) AS t;
CREATE MATERIALIZED VIEW by_state AS
  SELECT id, state, COUNT(*) OVER (PARTITION BY state) AS n,
         SUM(credit) OVER (PARTITION BY state ORDER BY credit, id) AS running
  FROM person;
CREATE MATERIALIZED VIEW by_category AS
  SELECT id, category, CUME_DIST() OVER (PARTITION BY category ORDER BY reserve) AS cd FROM auction;
