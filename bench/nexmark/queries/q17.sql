-- q17: auction statistics per day: bids per price rank and the minimum,
-- maximum, average and total price per (auction, day) (NEXMARK.md §2.2;
-- FILTER written with CASE as in q15).
CREATE SINK q17 AS
SELECT auction,
       DATE_FORMAT(date_time, '%Y-%m-%d') AS day,
       COUNT(*) AS total_bids,
       COUNT(CASE WHEN price < 10000 THEN 1 END) AS rank1_bids,
       COUNT(CASE WHEN price >= 10000 AND price < 1000000 THEN 1 END) AS rank2_bids,
       COUNT(CASE WHEN price >= 1000000 THEN 1 END) AS rank3_bids,
       MIN(price) AS min_price,
       MAX(price) AS max_price,
       AVG(price) AS avg_price,
       SUM(price) AS sum_price
FROM bid
GROUP BY auction, DATE_FORMAT(date_time, '%Y-%m-%d')
WITH (connector = 'blackhole');
