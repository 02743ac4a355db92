-- q14: a calculation with a user-defined function: count_char(s, c) counts
-- the occurrences of the character c in s (NEXMARK.md §2.2).
CREATE SINK q14 AS
SELECT auction, bidder, 0.908 * price AS price,
       CASE
         WHEN EXTRACT(HOUR FROM date_time) BETWEEN 8 AND 18 THEN 'dayTime'
         WHEN EXTRACT(HOUR FROM date_time) <= 6 OR EXTRACT(HOUR FROM date_time) >= 20 THEN 'nightTime'
         ELSE 'otherTime'
       END AS bid_time_type,
       date_time, extra,
       count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000
WITH (connector = 'blackhole');
