-- q21: a channel id for each bid: a fixed code for the four hot channels,
-- the channel_id parameter of the URL for the others; bids with neither are
-- dropped (NEXMARK.md §2.2; Flink's REGEXP_EXTRACT).
CREATE SINK q21 AS
SELECT auction, bidder, price, channel,
       CASE
         WHEN LOWER(channel) = 'apple' THEN '0'
         WHEN LOWER(channel) = 'google' THEN '1'
         WHEN LOWER(channel) = 'facebook' THEN '2'
         WHEN LOWER(channel) = 'baidu' THEN '3'
         ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
       END AS channel_id
FROM bid
WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL
   OR LOWER(channel) IN ('apple', 'google', 'facebook', 'baidu')
WITH (connector = 'blackhole');
