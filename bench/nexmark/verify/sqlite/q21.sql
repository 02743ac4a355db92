-- q21 by hand: SQLite has no regular expressions. REGEXP_EXTRACT(url,
-- '(&|^)channel_id=([^&]*)', 2) is the text after the first
-- 'channel_id=' that starts the URL or follows a '&', up to the next '&'
-- (or the end); NULL when there is none.
WITH b AS (
  SELECT *,
         CASE
           WHEN substr(url, 1, 11) = 'channel_id=' THEN substr(url, 12)
           WHEN instr(url, '&channel_id=') > 0 THEN substr(url, instr(url, '&channel_id=') + 12)
         END AS rest
  FROM bid
), c AS (
  SELECT *,
         CASE
           WHEN rest IS NULL THEN NULL
           WHEN instr(rest, '&') > 0 THEN substr(rest, 1, instr(rest, '&') - 1)
           ELSE rest
         END AS cid
  FROM b
)
SELECT auction, bidder, price, channel,
       CASE
         WHEN lower(channel) = 'apple' THEN '0'
         WHEN lower(channel) = 'google' THEN '1'
         WHEN lower(channel) = 'facebook' THEN '2'
         WHEN lower(channel) = 'baidu' THEN '3'
         ELSE cid
       END AS channel_id
FROM c
WHERE cid IS NOT NULL OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')
