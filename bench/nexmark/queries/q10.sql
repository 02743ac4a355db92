-- q10: log every bid to files partitioned by day and by hour:minute
-- (NEXMARK.md §2.2; Flink writes CSV files PARTITIONED BY (dt, hm)). The
-- path is relative to the bench's scratch directory.
CREATE SINK q10 AS
SELECT auction, bidder, price, date_time, extra,
       DATE_FORMAT(date_time, '%Y-%m-%d') AS dt,
       DATE_FORMAT(date_time, '%H:%i') AS hm
FROM bid
WITH (connector = 'file', path = 'q10', format = 'csv', partition_by = 'dt, hm');
