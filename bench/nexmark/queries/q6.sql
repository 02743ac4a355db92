-- q6: average selling price by seller over their last 10 closed auctions
-- (RisingWave's runnable form, q6_group_top1: the winning bid of each
-- auction, then a ROWS 10 PRECEDING window per seller; NEXMARK.md §2.2).
CREATE SINK q6 AS
SELECT q.seller,
       AVG(q.final) OVER (PARTITION BY q.seller ORDER BY q.date_time
                          ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg
FROM (
  SELECT ROW_NUMBER() OVER (PARTITION BY a.id, a.seller ORDER BY b.price DESC) AS rn,
         a.seller, b.price AS final, b.date_time
  FROM auction AS a
  JOIN bid AS b ON a.id = b.auction
  WHERE b.date_time BETWEEN a.date_time AND a.expires
) AS q
WHERE q.rn <= 1
WITH (connector = 'blackhole');
