-- Window table functions (SQL.md, "Time, watermarks, windows") in
-- materialized views: each window's running result, final once every row
-- has arrived. The translator turns each function into a subquery that
-- adds window_start and window_end; SESSION becomes gaps and islands per
-- group key. Rows with a NULL time belong to no window.

-- entry: tumble_counts
-- needs: window
CREATE MATERIALIZED VIEW v AS
  SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS hi, MIN(date_time) AS first_bid
  FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end;

-- entry: tumble_per_auction
-- needs: window
-- Bids per auction per minute, with a filter before and after.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, window_start, window_end, COUNT(*) AS n, COUNT(DISTINCT bidder) AS bidders
  FROM TUMBLE(bid, date_time, INTERVAL '1' MINUTE) WHERE channel <> 'baidu'
  GROUP BY auction, window_start, window_end HAVING COUNT(*) > 2;

-- entry: tumble_around_epoch
-- needs: window
-- Times on both sides of the epoch: windows start at multiples of the
-- size rounded down (1969-12-31 23:59:57 is in [23:59:57, 00:00:00)).
CREATE MATERIALIZED VIEW v AS
  SELECT window_start, window_end, COUNT(*) AS n, SUM(g) AS sg, MIN(ts) AS first_ts
  FROM TUMBLE(ev, ts, INTERVAL '3' SECOND) GROUP BY window_start, window_end;

-- entry: hop_counts
-- needs: window
-- Every bid is in five 10-second windows that slide by 2 seconds.
CREATE MATERIALIZED VIEW v AS
  SELECT window_start, window_end, COUNT(*) AS n, MAX(price) AS hi, AVG(price) AS mean
  FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND) GROUP BY window_start, window_end;

-- entry: hop_per_channel
-- needs: window
CREATE MATERIALIZED VIEW v AS
  SELECT channel, window_start, window_end, SUM(price) AS total
  FROM HOP(bid, date_time, INTERVAL '5' SECOND, INTERVAL '15' SECOND) GROUP BY channel, window_start, window_end;

-- entry: cumulate_counts
-- needs: window
-- Windows of 5, 10, 15 and 20 seconds from each 20-second boundary.
CREATE MATERIALIZED VIEW v AS
  SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS total
  FROM CUMULATE(bid, date_time, INTERVAL '5' SECOND, INTERVAL '20' SECOND) GROUP BY window_start, window_end;

-- entry: hot_items
-- needs: window
-- Nexmark q5's shape: bids per auction per sliding window, then the
-- largest count per window (a view over the windowed view).
CREATE MATERIALIZED VIEW counts AS
  SELECT auction, window_start, window_end, COUNT(*) AS n
  FROM HOP(bid, date_time, INTERVAL '10' SECOND, INTERVAL '30' SECOND) GROUP BY auction, window_start, window_end;
CREATE MATERIALIZED VIEW hottest AS
  SELECT window_start, MAX(n) AS top, COUNT(*) AS auctions FROM counts GROUP BY window_start;

-- entry: cumulate_per_channel
-- needs: window
CREATE MATERIALIZED VIEW v AS
  SELECT channel, window_start, window_end, COUNT(*) AS n, MAX(price) AS hi, COUNT(DISTINCT bidder) AS bidders
  FROM CUMULATE(bid, date_time, INTERVAL '10' SECOND, INTERVAL '1' MINUTE)
  GROUP BY channel, window_start, window_end;

-- entry: window_group_variants
-- needs: window
-- Grouping by window_end alone, a window with no aggregate (DISTINCT
-- pairs), and a filter on window_start.
CREATE MATERIALIZED VIEW by_end AS
  SELECT window_end, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '30' SECOND) GROUP BY window_end;
CREATE MATERIALIZED VIEW pairs AS
  SELECT window_start, channel FROM TUMBLE(bid, date_time, INTERVAL '1' MINUTE) GROUP BY window_start, window_end, channel;
CREATE MATERIALIZED VIEW late_windows AS
  SELECT window_start, window_end, SUM(price) AS total FROM HOP(bid, date_time, INTERVAL '30' SECOND, INTERVAL '1' MINUTE)
  WHERE window_start >= TIMESTAMP '2024-03-01 10:02:00' AND price < 10000 GROUP BY window_start, window_end;

-- entry: window_topn
-- needs: window, topn
-- The three auctions with the most bids in each 30-second window
-- (Nexmark q19's shape), ties broken by auction.
CREATE MATERIALIZED VIEW v AS
  SELECT window_start, auction, n, rn FROM (
    SELECT window_start, auction, n, ROW_NUMBER() OVER (PARTITION BY window_start ORDER BY n DESC, auction) AS rn
    FROM (SELECT window_start, window_end, auction, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '30' SECOND)
          GROUP BY window_start, window_end, auction) AS c) AS t
  WHERE rn <= 3;

-- entry: session_per_bidder
-- needs: session
-- A bidder's session ends 5 seconds after their last bid; a bid at least
-- 5 seconds after the previous one starts a new session.
CREATE MATERIALIZED VIEW v AS
  SELECT bidder, window_start, window_end, COUNT(*) AS n, SUM(price) AS total
  FROM SESSION(bid, date_time, INTERVAL '5' SECOND) GROUP BY bidder, window_start, window_end;

-- entry: session_skewed_keys
-- needs: session
-- Sessions per key of the skewed ev stream: the NULL key has sessions of
-- its own; times on both sides of the epoch.
CREATE MATERIALIZED VIEW v AS
  SELECT k, window_start, window_end, COUNT(*) AS n, MAX(id) AS last_id
  FROM SESSION(ev, ts, INTERVAL '10' SECOND) GROUP BY k, window_start, window_end;

-- entry: session_variants
-- needs: session
-- Sessions per two keys, and sessions of the whole stream (no key) over
-- the sparse times of ev.
CREATE MATERIALIZED VIEW two_keys AS
  SELECT bidder, channel, window_start, window_end, COUNT(*) AS n, MIN(price) AS lo
  FROM SESSION(bid, date_time, INTERVAL '10' SECOND) GROUP BY bidder, channel, window_start, window_end;
CREATE MATERIALIZED VIEW no_key AS
  SELECT window_start, window_end, COUNT(*) AS n, COUNT(DISTINCT k) AS keys_seen
  FROM SESSION(ev, ts, INTERVAL '2' SECOND) GROUP BY window_start, window_end;

-- entry: emit_on_window_close
-- needs: window, emit_on_close, watermark
-- Only closed windows appear: those the watermark (the largest bid time
-- minus 4 seconds) has passed, window_end <= watermark (SQL.md; eddy's
-- sessions close so too). The last windows of an input that has not
-- ended stay open.
CREATE MATERIALIZED VIEW v AS
  SELECT window_start, window_end, COUNT(*) AS n, MAX(price) AS hi
  FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end
  EMIT ON WINDOW CLOSE;
-- sqlite v:
SELECT window_start, window_end, COUNT(*), MAX(price)
FROM (SELECT *, date_time - (date_time % 10000) AS window_start, date_time - (date_time % 10000) + 10000 AS window_end FROM bid)
WHERE window_end <= (SELECT MAX(date_time) FROM bid) - 4000
GROUP BY window_start, window_end;

-- entry: session_emit_on_window_close
-- needs: session, emit_on_close, watermark
-- Only sessions the watermark has passed appear. SQLite reads them from
-- the running sessions of the first view.
CREATE MATERIALIZED VIEW running AS
  SELECT bidder, window_start, window_end, COUNT(*) AS n
  FROM SESSION(bid, date_time, INTERVAL '5' SECOND) GROUP BY bidder, window_start, window_end;
CREATE MATERIALIZED VIEW closed AS
  SELECT bidder, window_start, window_end, COUNT(*) AS n
  FROM SESSION(bid, date_time, INTERVAL '5' SECOND) GROUP BY bidder, window_start, window_end
  EMIT ON WINDOW CLOSE;
-- sqlite closed:
SELECT * FROM running WHERE window_end <= (SELECT MAX(date_time) FROM bid) - 4000;
