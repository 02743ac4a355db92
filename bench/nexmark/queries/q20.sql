-- q20: bids enriched with their auction, for auctions of category 10: a
-- filtered regular inner join of two unbounded streams (NEXMARK.md §2.2).
CREATE SINK q20 AS
SELECT b.auction, b.bidder, b.price, b.channel, b.url, b.date_time AS bid_date_time,
       b.extra AS bid_extra, a.item_name, a.description, a.initial_bid, a.reserve,
       a.date_time AS auction_date_time, a.expires, a.seller, a.category,
       a.extra AS auction_extra
FROM bid AS b
JOIN auction AS a ON b.auction = a.id
WHERE a.category = 10
WITH (connector = 'blackhole');
