-- Derived streams (CREATE STREAM ... AS SELECT) and continuous inserts
-- (INSERT INTO ... SELECT) between the sources and the views: their rows
-- are appended as the inputs grow, and views over them see them all.
-- SQLite mirrors a derived stream with a view and a continuous insert with
-- INSERT ... SELECT over the final data.

-- entry: derived_stream_filter
-- needs: derived_stream
CREATE STREAM big_bids AS
  SELECT auction, bidder, price * 2 AS doubled, date_time FROM bid WHERE price > 5000;
CREATE MATERIALIZED VIEW per_auction AS
  SELECT auction, COUNT(*) AS n, SUM(doubled) AS total, MAX(date_time) AS last_bid FROM big_bids GROUP BY auction;

-- entry: derived_stream_chain
-- needs: derived_stream
-- A derived stream over a derived stream, and a view over each.
CREATE STREAM cheap AS SELECT auction, price, channel FROM bid WHERE price < 500;
CREATE STREAM cheap_apple AS SELECT auction, price FROM cheap WHERE channel = 'apple';
CREATE MATERIALIZED VIEW cheap_count AS SELECT channel, COUNT(*) AS n FROM cheap GROUP BY channel;
CREATE MATERIALIZED VIEW apple_sum AS SELECT auction, SUM(price) AS total FROM cheap_apple GROUP BY auction;

-- entry: derived_stream_windows
-- needs: derived_stream, window, watermark
-- A windowed aggregation in a derived stream emits each window once, when
-- it closes: only the windows the watermark (the largest bid time minus 4
-- seconds) has passed.
CREATE STREAM per_window AS
  SELECT window_start, window_end, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  GROUP BY window_start, window_end;
CREATE MATERIALIZED VIEW v AS SELECT n, COUNT(*) AS windows, MAX(window_end) AS last_end FROM per_window GROUP BY n;
-- sqlite per_window:
SELECT window_start, window_end, COUNT(*) AS n
FROM (SELECT *, date_time - (date_time % 10000) AS window_start, date_time - (date_time % 10000) + 10000 AS window_end FROM bid)
WHERE window_end <= (SELECT MAX(date_time) FROM bid) - 4000
GROUP BY window_start, window_end;

-- entry: derived_stream_sessions
-- needs: derived_stream, session, watermark
-- Sessions in a derived stream are emitted once, when the watermark
-- passes their end. SQLite reads the closed ones from the running
-- sessions of the first view.
CREATE MATERIALIZED VIEW running AS
  SELECT bidder, window_start, window_end, COUNT(*) AS n
  FROM SESSION(bid, date_time, INTERVAL '5' SECOND) GROUP BY bidder, window_start, window_end;
CREATE STREAM closed AS
  SELECT bidder, window_start, window_end, COUNT(*) AS n
  FROM SESSION(bid, date_time, INTERVAL '5' SECOND) GROUP BY bidder, window_start, window_end;
CREATE MATERIALIZED VIEW per_size AS SELECT n, COUNT(*) AS sessions, MAX(window_end) AS last_end FROM closed GROUP BY n;
-- sqlite closed:
SELECT * FROM running WHERE window_end <= (SELECT MAX(date_time) FROM bid) - 4000;

-- entry: insert_select
-- needs: insert_select
-- Two continuous inserts fill one stream from two sources.
CREATE STREAM notable (src VARCHAR, id BIGINT, amount BIGINT);
INSERT INTO notable SELECT 'bid', auction, price FROM bid WHERE price > 50000;
INSERT INTO notable SELECT 'ev', id, g FROM ev WHERE g > 3;
CREATE MATERIALIZED VIEW v AS SELECT src, COUNT(*) AS n, SUM(amount) AS total, MIN(id) AS first_id FROM notable GROUP BY src;
