-- Views over tables: every upsert retracts the key's old row, so groups
-- shrink and grow, rows leave filters and come back (an account set
-- inactive is a delete for a view that keeps active ones).

-- entry: table_itself
-- A view of the whole table: the latest row per key.
CREATE MATERIALIZED VIEW v AS SELECT * FROM person;

-- entry: table_filter_active
-- Rows leave the view when deactivated and come back when reactivated.
CREATE MATERIALIZED VIEW v AS
  SELECT id, name, city, credit FROM person WHERE active AND credit > 1000;

-- entry: table_group_by_city
-- People move between groups; groups empty out and disappear.
CREATE MATERIALIZED VIEW v AS
  SELECT city, state, COUNT(*) AS n, SUM(credit) AS total, MIN(credit) AS lo, MAX(credit) AS hi,
         AVG(credit) AS mean, MIN(name) AS first_name
  FROM person WHERE active GROUP BY city, state;

-- entry: table_global
CREATE MATERIALIZED VIEW v AS
  SELECT COUNT(*) AS n, COUNT(city) AS with_city, SUM(credit) AS total, MAX(credit) AS hi,
         MIN(joined) AS first_joined, COUNT(DISTINCT state) AS states,
         SUM(CASE WHEN active THEN 1 ELSE 0 END) AS active_n
  FROM person;

-- entry: table_auction_categories
-- Auctions change category and reserve.
CREATE MATERIALIZED VIEW v AS
  SELECT category, COUNT(*) AS n, SUM(reserve) AS reserves, MAX(reserve) AS hi, MIN(expires) AS first_expiry,
         COUNT(DISTINCT seller) AS sellers
  FROM auction GROUP BY category;

-- entry: table_expressions
-- Expressions over table columns, with the DECIMAL credit.
CREATE MATERIALIZED VIEW v AS
  SELECT id, UPPER(name) AS uname, CONCAT(name, '@', COALESCE(city, '?')) AS label,
         credit * 2 AS double_credit, credit / 3 AS third, ROUND(credit, 1) AS rounded,
         IF(active, 'on', 'off') AS status, EXTRACT(HOUR FROM joined) AS joined_hour
  FROM person;
