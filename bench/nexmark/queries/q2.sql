-- q2: selection of the bids on every 123rd auction (Beam's and Flink's
-- auctionSkip; NEXMARK.md §2.2).
CREATE SINK q2 AS
SELECT auction, price
FROM bid
WHERE auction % 123 = 0
WITH (connector = 'blackhole');
