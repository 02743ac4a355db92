-- q1: currency conversion, dollars to euros (NEXMARK.md §2.2).
CREATE SINK q1 AS
SELECT auction, bidder, 0.908 * price AS price, date_time, extra
FROM bid
WITH (connector = 'blackhole');
