-- q15: bidding statistics per day: bids, distinct bidders and distinct
-- auctions, in total and per price rank (NEXMARK.md §2.2). eddy's dialect
-- is MySQL's, which has no FILTER clause: COUNT(*) FILTER (WHERE p) is
-- written COUNT(CASE WHEN p THEN 1 END), and COUNT(DISTINCT x) FILTER
-- (WHERE p) is written COUNT(DISTINCT CASE WHEN p THEN x END).
CREATE SINK q15 AS
SELECT DATE_FORMAT(date_time, '%Y-%m-%d') AS day,
       COUNT(*) AS total_bids,
       COUNT(CASE WHEN price < 10000 THEN 1 END) AS rank1_bids,
       COUNT(CASE WHEN price >= 10000 AND price < 1000000 THEN 1 END) AS rank2_bids,
       COUNT(CASE WHEN price >= 1000000 THEN 1 END) AS rank3_bids,
       COUNT(DISTINCT bidder) AS total_bidders,
       COUNT(DISTINCT CASE WHEN price < 10000 THEN bidder END) AS rank1_bidders,
       COUNT(DISTINCT CASE WHEN price >= 10000 AND price < 1000000 THEN bidder END) AS rank2_bidders,
       COUNT(DISTINCT CASE WHEN price >= 1000000 THEN bidder END) AS rank3_bidders,
       COUNT(DISTINCT auction) AS total_auctions,
       COUNT(DISTINCT CASE WHEN price < 10000 THEN auction END) AS rank1_auctions,
       COUNT(DISTINCT CASE WHEN price >= 10000 AND price < 1000000 THEN auction END) AS rank2_auctions,
       COUNT(DISTINCT CASE WHEN price >= 1000000 THEN auction END) AS rank3_auctions
FROM bid
GROUP BY DATE_FORMAT(date_time, '%Y-%m-%d')
WITH (connector = 'blackhole');
