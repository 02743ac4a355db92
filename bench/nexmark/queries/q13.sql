-- q13: bids joined with a bounded side input (NEXMARK.md §2.2). Flink's
-- side input is a file of 10,000 rows key = value = i; here it is a table
-- keyed by key, read from side_input.csv next to this file, and the join
-- is a lookup of each bid in the table's current rows (SQL.md, "Joins").
CREATE TABLE side_input (key BIGINT, value BIGINT, PRIMARY KEY (key))
WITH (connector = 'file', path = 'side_input.csv', format = 'csv');

CREATE SINK q13 AS
SELECT b.auction, b.bidder, b.price, b.date_time, s.value
FROM bid AS b
JOIN side_input AS s ON b.auction % 10000 = s.key
WITH (connector = 'blackhole');
