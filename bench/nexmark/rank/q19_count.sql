-- The same-run baseline of q19_rank: the bids of each auction counted, an
-- aggregate over the same partitions.
CREATE SINK q19_count AS
SELECT auction, COUNT(*) AS n
FROM bid
GROUP BY auction
WITH (connector = 'blackhole');
