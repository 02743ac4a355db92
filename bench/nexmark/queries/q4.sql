-- q4: average winning price per category: the highest bid of each
-- auction placed while it was open, then the average of those per
-- category. An updating query: each new maximum retracts the old one
-- (NEXMARK.md §2.2).
CREATE SINK q4 AS
SELECT q.category, AVG(q.final) AS avg
FROM (
  SELECT a.id, a.category, MAX(b.price) AS final
  FROM auction AS a
  JOIN bid AS b ON a.id = b.auction
  WHERE b.date_time BETWEEN a.date_time AND a.expires
  GROUP BY a.id, a.category
) AS q
GROUP BY q.category
WITH (connector = 'blackhole');
