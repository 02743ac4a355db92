-- RANK of every bid by price within its auction (issue 14; docs/benchmarks.md,
-- "Window functions: RANK over Nexmark bids"). Run with
-- `eddy bench nexmark --dir bench/nexmark/rank`.
CREATE SINK q19_rank AS
SELECT auction, price, RANK() OVER (PARTITION BY auction ORDER BY price DESC) AS r
FROM bid
WITH (connector = 'blackhole');
