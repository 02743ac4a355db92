-- q0: pass-through. Measures the source and the framework alone
-- (NEXMARK.md §2.2).
CREATE SINK q0 AS
SELECT auction, bidder, price, date_time, extra
FROM bid
WITH (connector = 'blackhole');
