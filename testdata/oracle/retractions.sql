-- Aggregates that must undo: values leave groups, groups empty out, the
-- extreme value goes away, the only non-NULL value is retracted. The
-- person and auction tables change in every round; person 7 is written
-- twice in one INSERT (credit 1.00, then its real row: the second wins).

-- entry: retract_to_null
-- Conditional aggregates over a table: when a group's last matching row
-- leaves, SUM, MIN and MAX must fall back to NULL (not 0 nor a stale
-- value), and COUNT of the condition to 0.
CREATE MATERIALIZED VIEW v AS
  SELECT state, COUNT(*) AS n, SUM(CASE WHEN active THEN credit END) AS active_credit,
         MAX(CASE WHEN active THEN name END) AS last_active, MIN(CASE WHEN NOT active THEN id END) AS first_inactive,
         COUNT(CASE WHEN NOT active THEN 1 END) AS inactive, AVG(CASE WHEN active THEN credit END) AS mean_active
  FROM person GROUP BY state;

-- entry: retract_nullable_reserve
-- Reserves change, some to NULL: SUM and AVG over the non-NULL ones,
-- groups whose reserves are all NULL.
CREATE MATERIALIZED VIEW v AS
  SELECT category, seller % 3 AS seller_group, COUNT(*) AS n, COUNT(reserve) AS with_reserve,
         SUM(reserve) AS total, AVG(reserve) AS mean, MIN(reserve) AS lo, MAX(reserve) AS hi
  FROM auction GROUP BY category, seller % 3;

-- entry: retract_within_batch
-- Person 7's first row (credit 1.00) is replaced in the same INSERT: no
-- view may keep it. A global aggregate over no rows is one row of 0 and
-- NULLs.
CREATE MATERIALIZED VIEW only_first AS
  SELECT COUNT(*) AS n, SUM(credit) AS total, MAX(name) AS who FROM person WHERE credit = 1.00;
CREATE MATERIALIZED VIEW seven AS SELECT id, name, credit FROM person WHERE id = 7;

-- entry: retract_having
-- HAVING over a table aggregate: groups leave and re-enter as people move
-- and change their credit.
CREATE MATERIALIZED VIEW v AS
  SELECT city, COUNT(*) AS n, MAX(credit) AS hi
  FROM person GROUP BY city HAVING COUNT(*) >= 4 AND MAX(credit) > 5000;

-- entry: retract_count_distinct
-- COUNT(DISTINCT) when the last row of a value leaves a group.
CREATE MATERIALIZED VIEW v AS
  SELECT state, COUNT(DISTINCT city) AS cities, COUNT(DISTINCT active) AS flags,
         COUNT(DISTINCT CASE WHEN active THEN city END) AS active_cities
  FROM person GROUP BY state;

-- entry: retract_min_max_text
-- MIN and MAX over strings and times as rows move between groups.
CREATE MATERIALIZED VIEW v AS
  SELECT active, MIN(city) AS c1, MAX(city) AS c2, MIN(email) AS e1, MAX(joined) AS j2, MIN(credit) AS lo
  FROM person GROUP BY active;

-- entry: retract_chain
-- Three levels over a table: active people per state, states per size,
-- and the global total; every move changes all three.
CREATE MATERIALIZED VIEW per_state AS
  SELECT state, COUNT(*) AS n FROM person WHERE active GROUP BY state;
CREATE MATERIALIZED VIEW per_size AS
  SELECT n, COUNT(*) AS states FROM per_state GROUP BY n;
CREATE MATERIALIZED VIEW total AS
  SELECT SUM(n * states) AS people, COUNT(*) AS sizes, MAX(n) AS biggest FROM per_size;

-- entry: retract_distinct_then_count
-- DISTINCT of a table's column, then a count over it: a value counts
-- once however many rows hold it, until the last one leaves.
CREATE MATERIALIZED VIEW v AS
  SELECT COUNT(*) AS pairs, COUNT(city) AS with_city, COUNT(DISTINCT state) AS states
  FROM (SELECT DISTINCT city, state FROM person WHERE credit > 3000) AS d;

-- entry: stream_and_table_views
-- A view of bids per bidder and a view of active people: both kept
-- independently in one engine.
CREATE MATERIALIZED VIEW bids_per_bidder AS
  SELECT bidder, COUNT(*) AS n, MAX(price) AS hi FROM bid GROUP BY bidder;
CREATE MATERIALIZED VIEW rich_people AS
  SELECT id, name FROM person WHERE credit > 7000 AND active;
