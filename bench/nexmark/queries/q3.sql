-- q3: local item suggestion: sellers in Oregon, Idaho or California who
-- list an auction in category 10. A regular inner join of two unbounded
-- streams (NEXMARK.md §2.2).
CREATE SINK q3 AS
SELECT p.name, p.city, p.state, a.id
FROM auction AS a
JOIN person AS p ON a.seller = p.id
WHERE a.category = 10 AND p.state IN ('OR', 'ID', 'CA')
WITH (connector = 'blackhole');
