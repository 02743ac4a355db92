-- q18: the last bid of each bidder on each auction: de-duplication by
-- ROW_NUMBER over event time, newest first (NEXMARK.md §2.2).
CREATE SINK q18 AS
SELECT auction, bidder, price, channel, url, date_time, extra
FROM (
  SELECT auction, bidder, price, channel, url, date_time, extra,
         ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rn
  FROM bid
) AS t
WHERE rn = 1
WITH (connector = 'blackhole');
