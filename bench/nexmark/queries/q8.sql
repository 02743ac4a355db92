-- q8: persons who created an auction in the same 10-second tumbling window
-- in which they registered: a window join of two windowed group-bys
-- (NEXMARK.md §2.2).
CREATE SINK q8 AS
SELECT p.id, p.name, p.starttime
FROM (
  SELECT id, name, window_start AS starttime, window_end AS endtime
  FROM TUMBLE(person, date_time, INTERVAL '10' SECOND)
  GROUP BY id, name, window_start, window_end
) AS p
JOIN (
  SELECT seller, window_start AS starttime, window_end AS endtime
  FROM TUMBLE(auction, date_time, INTERVAL '10' SECOND)
  GROUP BY seller, window_start, window_end
) AS a ON p.id = a.seller AND p.starttime = a.starttime AND p.endtime = a.endtime
WITH (connector = 'blackhole');
