-- q7: the highest bid of each 10-second tumbling window, joined back to the
-- bids that carry that price within the window (NEXMARK.md §2.2).
CREATE SINK q7 AS
SELECT b.auction, b.price, b.bidder, b.date_time
FROM bid AS b
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS date_time
  FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  GROUP BY window_end
) AS b1 ON b.price = b1.maxprice
WHERE b.date_time BETWEEN b1.date_time - INTERVAL '10' SECOND AND b1.date_time
WITH (connector = 'blackhole');
