-- q19: the ten highest bids of each auction: a Top-N per auction
-- (NEXMARK.md §2.2).
CREATE SINK q19 AS
SELECT *
FROM (
  SELECT auction, bidder, price, channel, url, date_time, extra,
         ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
  FROM bid
) AS t
WHERE rank_number <= 10
WITH (connector = 'blackhole');
