-- q16: channel statistics per day: q15's figures per channel, with the
-- latest hour:minute seen (NEXMARK.md §2.2; FILTER written with CASE as in
-- q15).
CREATE SINK q16 AS
SELECT channel,
       DATE_FORMAT(date_time, '%Y-%m-%d') AS day,
       MAX(DATE_FORMAT(date_time, '%H:%i')) AS minute,
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
GROUP BY channel, DATE_FORMAT(date_time, '%Y-%m-%d')
WITH (connector = 'blackhole');
