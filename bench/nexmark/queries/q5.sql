-- q5: hot items: the auctions with the most bids in each 10-second window
-- sliding every 2 seconds (NEXMARK.md §2.2). Windows show running counts
-- as bids arrive (RisingWave's q5; see README.md for the variant that
-- emits each window once, as Flink does).
CREATE SINK q5 AS
SELECT ab.auction, ab.num
FROM (
  SELECT auction, COUNT(*) AS num, window_start AS starttime
  FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
  GROUP BY auction, window_start
) AS ab
JOIN (
  SELECT MAX(c.num) AS maxn, c.starttime_c
  FROM (
    SELECT COUNT(*) AS num, window_start AS starttime_c
    FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
    GROUP BY auction, window_start
  ) AS c
  GROUP BY c.starttime_c
) AS mb ON ab.starttime = mb.starttime_c AND ab.num >= mb.maxn
WITH (connector = 'blackhole');
