-- q11: bids per bidder session, a session closing after 10 seconds without
-- a bid (NEXMARK.md §2.2). Sessions show running counts as bids arrive
-- (see README.md for the variant that emits each session once).
CREATE SINK q11 AS
SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM SESSION(bid, date_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
WITH (connector = 'blackhole');
