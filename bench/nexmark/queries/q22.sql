-- q22: the three directories of each bid's URL (NEXMARK.md §2.2; Flink's
-- SPLIT_INDEX is 0-based, SPLIT_PART 1-based).
CREATE SINK q22 AS
SELECT auction, bidder, price, channel,
       SPLIT_PART(url, '/', 4) AS dir1,
       SPLIT_PART(url, '/', 5) AS dir2,
       SPLIT_PART(url, '/', 6) AS dir3
FROM bid
WITH (connector = 'blackhole');
