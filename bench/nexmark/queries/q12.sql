-- q12: bids per bidder in 10-second tumbling windows of processing time
-- (NEXMARK.md §2.2): the bids are stamped with PROCTIME() as they are read.
CREATE SINK q12 AS
WITH b AS (SELECT bidder, PROCTIME() AS p_time FROM bid)
SELECT bidder, COUNT(*) AS bid_count, window_start, window_end
FROM TUMBLE(b, p_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
WITH (connector = 'blackhole');
