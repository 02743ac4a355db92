-- q9: the winning bid of each auction: its highest bid placed while it was
-- open (the earliest among equal prices), with the auction's columns. A
-- join feeding a Top-1 per auction; updating (NEXMARK.md §2.2).
CREATE SINK q9 AS
SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category,
       auction, bidder, price, bid_date_time
FROM (
  SELECT a.id, a.item_name, a.description, a.initial_bid, a.reserve, a.date_time, a.expires,
         a.seller, a.category, b.auction, b.bidder, b.price, b.date_time AS bid_date_time,
         ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time ASC) AS rn
  FROM auction AS a
  JOIN bid AS b ON a.id = b.auction
  WHERE b.date_time BETWEEN a.date_time AND a.expires
) AS t
WHERE rn <= 1
WITH (connector = 'blackhole');
