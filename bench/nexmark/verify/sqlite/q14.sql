-- q14 by hand: SQLite has no COUNT_CHAR; the occurrences of 'c' are the
-- length lost by deleting them (the padding is ASCII, so characters are
-- bytes). EXTRACT(HOUR ...) is read from strftime over whole seconds
-- (date_time is epoch milliseconds, rounded down to seconds, also before
-- 1970).
WITH b AS (
  SELECT *, CAST(strftime('%H', (date_time - ((date_time % 1000) + 1000) % 1000) / 1000, 'unixepoch') AS INTEGER) AS h
  FROM bid
)
SELECT auction, bidder, 0.908 * price AS price,
       CASE
         WHEN h BETWEEN 8 AND 18 THEN 'dayTime'
         WHEN h <= 6
           OR h >= 20 THEN 'nightTime'
         ELSE 'otherTime'
       END AS bid_time_type,
       date_time, extra,
       length(extra) - length(replace(extra, 'c', '')) AS c_counts
FROM b
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000
