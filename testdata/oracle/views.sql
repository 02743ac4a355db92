-- Subqueries in FROM, CTEs and views over views: aggregates over
-- aggregates see updates (a retraction and an insert) of their input rows.

-- entry: subquery_filter
-- Filters inside and outside a derived table.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, price FROM (SELECT auction, price, channel FROM bid WHERE price > 2000) AS t
  WHERE channel <> 'apple' AND auction < 1010;

-- entry: agg_of_agg
-- A histogram of per-auction bid counts: every new bid moves its auction
-- from one bucket to the next.
CREATE MATERIALIZED VIEW v AS
  SELECT n, COUNT(*) AS auctions FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) AS g GROUP BY n;

-- entry: max_of_sums
CREATE MATERIALIZED VIEW v AS
  SELECT MAX(total) AS hi, MIN(total) AS lo, COUNT(*) AS channels, SUM(total) AS all_total
  FROM (SELECT channel, SUM(price) AS total FROM bid GROUP BY channel) AS g;

-- entry: distinct_subquery
CREATE MATERIALIZED VIEW v AS
  SELECT channel, COUNT(*) AS bidders
  FROM (SELECT DISTINCT bidder, channel FROM bid) AS d GROUP BY channel;

-- entry: cte_chain
-- A CTE reading an earlier CTE.
CREATE MATERIALIZED VIEW v AS
  WITH big AS (SELECT auction, bidder, price FROM bid WHERE price > 1000),
       per_bidder AS (SELECT bidder, COUNT(*) AS n, MAX(price) AS hi FROM big GROUP BY bidder)
  SELECT n, COUNT(*) AS bidders, MAX(hi) AS top FROM per_bidder GROUP BY n;

-- entry: cte_column_list
CREATE MATERIALIZED VIEW v AS
  WITH t (key_name, total, cnt) AS (SELECT k, SUM(g), COUNT(*) FROM ev GROUP BY k)
  SELECT key_name, total, cnt FROM t WHERE cnt > 10;

-- entry: view_over_view
-- Per-bidder totals, then how many bidders have each number of bids.
CREATE MATERIALIZED VIEW per_bidder AS
  SELECT bidder, COUNT(*) AS n, SUM(price) AS total FROM bid GROUP BY bidder;
CREATE MATERIALIZED VIEW histogram AS
  SELECT n, COUNT(*) AS bidders, MAX(total) AS top FROM per_bidder GROUP BY n;

-- entry: view_chain_three
-- Three views in a chain, each filtering or aggregating the one before.
CREATE MATERIALIZED VIEW per_auction AS
  SELECT auction, COUNT(*) AS n, MAX(price) AS hi FROM bid GROUP BY auction;
CREATE MATERIALIZED VIEW hot AS
  SELECT auction, n, hi FROM per_auction WHERE n >= 40;
CREATE MATERIALIZED VIEW hot_summary AS
  SELECT COUNT(*) AS auctions, SUM(n) AS bids, MAX(hi) AS hi FROM hot;

-- entry: view_over_table_view
-- A filtered view of a table and an aggregate over it: deactivations and
-- moves reach the second view as retractions.
CREATE MATERIALIZED VIEW active_people AS
  SELECT id, state, credit FROM person WHERE active;
CREATE MATERIALIZED VIEW per_state AS
  SELECT state, COUNT(*) AS n, SUM(credit) AS total FROM active_people GROUP BY state;

-- entry: view_distinct_over_view
-- DISTINCT over a view that retracts.
CREATE MATERIALIZED VIEW cities AS SELECT id, city FROM person WHERE active;
CREATE MATERIALIZED VIEW distinct_cities AS SELECT DISTINCT city FROM cities;
