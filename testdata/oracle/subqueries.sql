-- Subqueries anywhere in a query, beyond the IN and EXISTS conjuncts of
-- WHERE that become semi and anti joins (joins.sql): scalar subqueries
-- (subquery_scalar), uncorrelated and correlated (by equality and by other
-- comparisons), with and without aggregates, in the select list, WHERE,
-- HAVING, CASE and function arguments; and predicates on subqueries
-- (subquery_expr) under OR and NOT and as boolean columns: IN, NOT IN,
-- EXISTS, NOT EXISTS and quantified comparisons (= ANY, > ALL, ...), with
-- NULLs on either side (ev's columns, person.state and city,
-- auction.reserve hold NULLs). Inputs retract: tables, aggregates.
--
-- A scalar subquery here yields at most one row (an aggregate, or a
-- lookup by a unique key): MySQL fails on more, SQLite takes the first.
-- SQLite has no ANY or ALL: those queries carry their SQLite form, where
-- x > ALL (S) is true when no row of S makes x > y false or NULL, false
-- when one makes it false, and NULL otherwise (x < ANY (S) likewise).

-- entry: sq_scalar_uncorrelated_select
-- needs: subquery_scalar
-- A global aggregate in the select list: every row changes as it grows.
CREATE MATERIALIZED VIEW above_avg AS
  SELECT auction, date_time, price - (SELECT AVG(price) FROM bid) AS above FROM bid WHERE bidder = 3;
CREATE MATERIALIZED VIEW credit_share AS
  SELECT id, credit * 100 / (SELECT SUM(credit) FROM person) AS pct FROM person;
CREATE MATERIALIZED VIEW channel_of_total AS
  SELECT channel, COUNT(*) AS n, (SELECT COUNT(*) FROM bid) AS total FROM bid GROUP BY channel;

-- entry: sq_scalar_uncorrelated_where
-- needs: subquery_scalar
-- Rows pass the filter and leave it as the subquery's value moves.
CREATE MATERIALIZED VIEW big_bids AS
  SELECT auction, bidder, price FROM bid WHERE price > (SELECT AVG(price) * 3 FROM bid);
CREATE MATERIALIZED VIEW beats_wa AS
  SELECT id, name FROM person WHERE credit >= (SELECT MAX(credit) FROM person WHERE state = 'WA');
CREATE MATERIALIZED VIEW top_g AS
  SELECT id, g FROM ev WHERE g = (SELECT MAX(g) FROM ev WHERE k = 'b');
CREATE MATERIALIZED VIEW after_first_apple AS
  SELECT COUNT(*) AS n FROM bid WHERE date_time > (SELECT MIN(date_time) FROM bid WHERE channel = 'Apple');

-- entry: sq_scalar_having
-- needs: subquery_scalar
-- Scalar subqueries in HAVING, uncorrelated and correlated with a group
-- column.
CREATE MATERIALIZED VIEW busy_bidders AS
  SELECT bidder, COUNT(*) AS n FROM bid GROUP BY bidder HAVING COUNT(*) > (SELECT COUNT(*) FROM bid) / 60.0;
CREATE MATERIALIZED VIEW above_reserves AS
  SELECT auction, MAX(price) AS hi FROM bid GROUP BY auction HAVING MAX(price) > (SELECT AVG(reserve) * 20 FROM auction);
CREATE MATERIALIZED VIEW more_than_previous AS
  SELECT b.auction, COUNT(*) AS n FROM bid AS b GROUP BY b.auction
  HAVING COUNT(*) > (SELECT COUNT(*) FROM bid AS b2 WHERE b2.auction = b.auction + 1);

-- entry: sq_scalar_key_lookup
-- needs: subquery_scalar
-- A correlated lookup by key without an aggregate: NULL when the key is
-- missing (bidders above 50 are nobody; people come later), and changing
-- as the table row changes.
CREATE MATERIALIZED VIEW bid_names AS
  SELECT b.auction, b.date_time, (SELECT p.name FROM person AS p WHERE p.id = b.bidder) AS who
  FROM bid AS b WHERE b.price > 30000;
CREATE MATERIALIZED VIEW seller_states AS
  SELECT a.id, (SELECT p.state FROM person AS p WHERE p.id = a.seller) AS seller_state, a.reserve FROM auction AS a;
CREATE MATERIALIZED VIEW person_category AS
  SELECT p.id, (SELECT a.category FROM auction AS a WHERE a.id = p.id + 999) AS cat FROM person AS p;

-- entry: sq_scalar_correlated_count
-- needs: subquery_scalar
-- Correlated aggregates per row of a table: COUNT of no rows is 0, not
-- NULL (the COUNT bug of decorrelation); SUM and MAX of no rows are NULL.
CREATE MATERIALIZED VIEW auction_stats AS
  SELECT a.id, (SELECT COUNT(*) FROM bid AS b WHERE b.auction = a.id AND b.price > 50000) AS big,
         (SELECT SUM(b.price) FROM bid AS b WHERE b.auction = a.id AND b.channel = 'Apple') AS apple_total,
         (SELECT MAX(b.price) FROM bid AS b WHERE b.auction = a.id) AS hi
  FROM auction AS a;
CREATE MATERIALIZED VIEW person_bids AS
  SELECT p.id, (SELECT COUNT(*) FROM bid AS b WHERE b.bidder = p.id AND b.price > 20000) AS big_bids,
         (SELECT COUNT(b.auction) FROM bid AS b WHERE b.bidder = p.id AND b.channel = 'Apple') AS apple_bids
  FROM person AS p;
CREATE MATERIALIZED VIEW ev_same_key AS
  SELECT e.id, (SELECT COUNT(e2.g) FROM ev AS e2 WHERE e2.k = e.k AND e2.s = e.s) AS same FROM ev AS e;

-- entry: sq_scalar_non_equality
-- needs: subquery_scalar
-- Correlation by other comparisons than equality: ranks and running
-- maxima computed by subqueries.
CREATE MATERIALIZED VIEW higher_in_auction AS
  SELECT b.date_time, b.auction,
         (SELECT COUNT(*) FROM bid AS b2 WHERE b2.auction = b.auction AND b2.price > b.price) AS higher
  FROM bid AS b WHERE b.auction < 1005;
CREATE MATERIALIZED VIEW best_before AS
  SELECT b.date_time, (SELECT MAX(b2.price) FROM bid AS b2 WHERE b2.bidder = b.bidder AND b2.date_time < b.date_time) AS best
  FROM bid AS b WHERE b.auction = 1000;
CREATE MATERIALIZED VIEW richer_people AS
  SELECT p.id, (SELECT COUNT(*) FROM person AS p2 WHERE p2.credit > p.credit) AS richer FROM person AS p;
CREATE MATERIALIZED VIEW ev_before AS
  SELECT e.id, (SELECT SUM(e2.g) FROM ev AS e2 WHERE e2.id < e.id AND e2.k = 'c') AS c_before FROM ev AS e WHERE e.k = 'b';

-- entry: sq_scalar_in_expressions
-- needs: subquery_scalar
-- Scalar subqueries inside CASE, COALESCE, UPPER and arithmetic.
CREATE MATERIALIZED VIEW tiers AS
  SELECT b.date_time,
         CASE WHEN b.price > (SELECT AVG(b2.price) FROM bid AS b2 WHERE b2.auction = b.auction) THEN 'high' ELSE 'low' END AS tier
  FROM bid AS b WHERE b.bidder < 10;
CREATE MATERIALIZED VIEW person_extras AS
  SELECT p.id,
         COALESCE((SELECT MAX(b.price) FROM bid AS b WHERE b.bidder = p.id AND b.channel = 'Apple'), -1) AS best_apple,
         UPPER((SELECT p2.name FROM person AS p2 WHERE p2.id = p.id + 1)) AS next_name
  FROM person AS p;
CREATE MATERIALIZED VIEW reserve_gap AS
  SELECT a.id, ABS(a.reserve - (SELECT AVG(a2.reserve) FROM auction AS a2 WHERE a2.category = a.category)) AS off_mean
  FROM auction AS a;

-- entry: sq_scalar_where_correlated
-- needs: subquery_scalar
-- Correlated scalar subqueries compared in WHERE.
CREATE MATERIALIZED VIEW auction_max AS
  SELECT b.auction, b.price, b.date_time FROM bid AS b
  WHERE b.price = (SELECT MAX(b2.price) FROM bid AS b2 WHERE b2.auction = b.auction);
CREATE MATERIALIZED VIEW sellers AS
  SELECT p.id FROM person AS p WHERE (SELECT COUNT(*) FROM auction AS a WHERE a.seller = p.id) >= 1;
CREATE MATERIALIZED VIEW above_state_mean AS
  SELECT p.id, p.credit FROM person AS p
  WHERE p.credit > (SELECT AVG(p2.credit) FROM person AS p2 WHERE p2.state = p.state);

-- entry: sq_scalar_over_views
-- needs: subquery_scalar
-- Subqueries over a view of aggregates that update with every bid.
CREATE MATERIALIZED VIEW totals AS SELECT bidder, SUM(price) AS total FROM bid GROUP BY bidder;
CREATE MATERIALIZED VIEW above_mean AS
  SELECT bidder, total FROM totals WHERE total > (SELECT AVG(total) FROM totals);
CREATE MATERIALIZED VIEW places AS
  SELECT t.bidder, (SELECT COUNT(*) FROM totals AS t2 WHERE t2.total > t.total) + 1 AS place FROM totals AS t;

-- entry: sq_scalar_table_dml
-- needs: subquery_scalar, table_dml
-- Scalar subqueries over tables the entry changes in bulk.
CREATE MATERIALIZED VIEW seller_names AS
  SELECT a.id, (SELECT p.name FROM person AS p WHERE p.id = a.seller) AS seller_name,
         (SELECT COUNT(*) FROM auction AS a2 WHERE a2.seller = a.seller) AS seller_auctions
  FROM auction AS a;
CREATE MATERIALIZED VIEW state_richest AS
  SELECT p.id, p.state FROM person AS p
  WHERE p.credit = (SELECT MAX(p2.credit) FROM person AS p2 WHERE p2.state = p.state);
-- dml 1:
DELETE FROM person WHERE id % 3 = 0;
UPDATE auction SET seller = 7 WHERE category = 12;
-- dml 3:
UPDATE person SET credit = 9999.99 WHERE id = 8 OR id = 14;

-- entry: sq_in_under_or
-- needs: subquery_expr
-- IN, NOT IN and NOT EXISTS as one side of an OR: not a semi join.
CREATE MATERIALIZED VIEW wa_or_big AS
  SELECT auction, bidder, price FROM bid WHERE bidder IN (SELECT id FROM person WHERE state = 'WA') OR price > 90000;
CREATE MATERIALIZED VIEW idle_or_rich AS
  SELECT id, name FROM person AS p WHERE NOT EXISTS (SELECT 1 FROM auction AS a WHERE a.seller = p.id) OR credit > 9000;
CREATE MATERIALIZED VIEW not_b_or_null_key AS
  SELECT id, g FROM ev WHERE g NOT IN (SELECT g FROM ev WHERE k = 'b' AND g IS NOT NULL AND g > 0) OR k IS NULL;
CREATE MATERIALIZED VIEW exists_or_exists AS
  SELECT id FROM person AS p
  WHERE EXISTS (SELECT 1 FROM bid AS b WHERE b.bidder = p.id AND b.price > 90000)
     OR EXISTS (SELECT 1 FROM auction AS a WHERE a.seller = p.id AND a.reserve IS NULL);

-- entry: sq_not_in_nulls
-- needs: subquery_expr
-- NOT IN with NULLs on either side, as boolean columns (NULL, not
-- false, when the row is not found but the set holds a NULL, or the
-- value is NULL) and as a filter.
CREATE MATERIALIZED VIEW g_not_in_c AS
  SELECT id, g, g NOT IN (SELECT g FROM ev WHERE k = 'c') AS ni FROM ev;
CREATE MATERIALIZED VIEW null_left AS
  SELECT id, k, k NOT IN (SELECT k FROM ev WHERE g = 5) AS nk, g IN (SELECT g FROM ev WHERE k = 'A') AS ig FROM ev;
CREATE MATERIALIZED VIEW no_rich_state AS
  SELECT id, state, state NOT IN (SELECT state FROM person WHERE credit > 9000) AS no_rich FROM person;
CREATE MATERIALIZED VIEW unique_reserve AS
  SELECT a.id, a.reserve NOT IN (SELECT a2.reserve FROM auction AS a2 WHERE a2.category = a.category AND a2.id <> a.id) AS u
  FROM auction AS a;
CREATE MATERIALIZED VIEW not_in_or_null AS
  SELECT id, state FROM person WHERE state NOT IN (SELECT state FROM person WHERE NOT active) OR credit < 2000;

-- entry: sq_exists_select_list
-- needs: subquery_expr
-- EXISTS, NOT EXISTS and IN as boolean columns, correlated.
CREATE MATERIALIZED VIEW person_flags AS
  SELECT p.id, EXISTS (SELECT 1 FROM bid AS b WHERE b.bidder = p.id AND b.price > 50000) AS big_bidder,
         NOT EXISTS (SELECT 1 FROM auction AS a WHERE a.seller = p.id) AS no_auctions
  FROM person AS p;
CREATE MATERIALIZED VIEW reserve_hit AS
  SELECT a.id, a.reserve IN (SELECT b.price DIV 100 * 100 FROM bid AS b WHERE b.auction = a.id) AS hit FROM auction AS a;
CREATE MATERIALIZED VIEW ev_flags AS
  SELECT e.id, EXISTS (SELECT 1 FROM ev AS e2 WHERE e2.k = e.k AND e2.id > e.id) AS has_later,
         e.s IN (SELECT e3.s FROM ev AS e3 WHERE e3.k = 'c') AS s_in_c
  FROM ev AS e;

-- entry: sq_quantified_where
-- needs: subquery_expr
-- Quantified comparisons as filters; a NULL in the set makes > ALL
-- unknown unless some comparison is false.
CREATE MATERIALIZED VIEW above_all_reserves AS
  SELECT auction, price, date_time FROM bid WHERE price > ALL (SELECT reserve * 10 FROM auction WHERE category = 12);
-- sqlite above_all_reserves:
SELECT auction, price, date_time FROM bid
WHERE NOT EXISTS (SELECT 1 FROM auction WHERE category = 12 AND (price > reserve * 10) IS NOT 1);
CREATE MATERIALIZED VIEW below_any_ca AS
  SELECT id, credit FROM person WHERE credit < ANY (SELECT credit FROM person WHERE state = 'CA');
-- sqlite below_any_ca:
SELECT id, credit FROM person AS p WHERE EXISTS (SELECT 1 FROM person AS q WHERE q.state = 'CA' AND p.credit < q.credit);
CREATE MATERIALIZED VIEW active_sellers AS
  SELECT a.id FROM auction AS a WHERE a.seller = ANY (SELECT id FROM person WHERE active);
-- sqlite active_sellers:
SELECT a.id FROM auction AS a WHERE a.seller IN (SELECT id FROM person WHERE active);
CREATE MATERIALIZED VIEW g_all_of_c AS
  SELECT id, g FROM ev WHERE g >= ALL (SELECT g FROM ev WHERE k = 'c' AND g IS NOT NULL) OR g <> ALL (SELECT g FROM ev WHERE k = 'A');
-- sqlite g_all_of_c:
SELECT id, g FROM ev AS e
WHERE NOT EXISTS (SELECT 1 FROM ev AS c WHERE c.k = 'c' AND c.g IS NOT NULL AND (e.g >= c.g) IS NOT 1)
   OR NOT EXISTS (SELECT 1 FROM ev AS a WHERE a.k = 'A' AND (e.g <> a.g) IS NOT 1);

-- entry: sq_quantified_select_list
-- needs: subquery_expr
-- Quantified comparisons as three-valued boolean columns, correlated and
-- not.
CREATE MATERIALIZED VIEW is_max AS
  SELECT b.date_time, b.price >= ALL (SELECT b2.price FROM bid AS b2 WHERE b2.auction = b.auction) AS top
  FROM bid AS b WHERE b.bidder < 5;
-- sqlite is_max:
SELECT b.date_time, NOT EXISTS (SELECT 1 FROM bid AS b2 WHERE b2.auction = b.auction AND b.price < b2.price) AS top
FROM bid AS b WHERE b.bidder < 5;
CREATE MATERIALIZED VIEW ev_any_all AS
  SELECT e.id, e.g < ANY (SELECT g FROM ev WHERE k = 'c') AS lt_any, e.g <> ALL (SELECT g FROM ev WHERE k = 'A') AS ne_all
  FROM ev AS e;
-- sqlite ev_any_all:
SELECT e.id,
  CASE WHEN EXISTS (SELECT 1 FROM ev AS c WHERE c.k = 'c' AND e.g < c.g) THEN 1
       WHEN EXISTS (SELECT 1 FROM ev AS c WHERE c.k = 'c' AND (e.g < c.g) IS NULL) THEN NULL ELSE 0 END AS lt_any,
  CASE WHEN EXISTS (SELECT 1 FROM ev AS a WHERE a.k = 'A' AND NOT (e.g <> a.g)) THEN 0
       WHEN EXISTS (SELECT 1 FROM ev AS a WHERE a.k = 'A' AND (e.g <> a.g) IS NULL) THEN NULL ELSE 1 END AS ne_all
FROM ev AS e;
CREATE MATERIALIZED VIEW above_cat10 AS
  SELECT date_time, price > ALL (SELECT reserve * 10 FROM auction WHERE category = 10) AS above FROM bid WHERE bidder = 7;
-- sqlite above_cat10:
SELECT date_time,
  CASE WHEN EXISTS (SELECT 1 FROM auction WHERE category = 10 AND NOT (price > reserve * 10)) THEN 0
       WHEN EXISTS (SELECT 1 FROM auction WHERE category = 10 AND (price > reserve * 10) IS NULL) THEN NULL ELSE 1 END AS above
FROM bid WHERE bidder = 7;
CREATE MATERIALIZED VIEW reserve_vs_bids AS
  SELECT a.id, a.reserve < ALL (SELECT b.price FROM bid AS b WHERE b.auction = a.id) AS under_all,
         a.reserve = ANY (SELECT b.price DIV 100 * 100 FROM bid AS b WHERE b.auction = a.id) AS hit
  FROM auction AS a;
-- sqlite reserve_vs_bids:
SELECT a.id,
  CASE WHEN EXISTS (SELECT 1 FROM bid AS b WHERE b.auction = a.id AND NOT (a.reserve < b.price)) THEN 0
       WHEN EXISTS (SELECT 1 FROM bid AS b WHERE b.auction = a.id AND (a.reserve < b.price) IS NULL) THEN NULL ELSE 1 END AS under_all,
  a.reserve IN (SELECT b.price / 100 * 100 FROM bid AS b WHERE b.auction = a.id) AS hit
FROM auction AS a;

-- entry: sq_not_exists_under_not
-- needs: subquery_expr
-- EXISTS under NOT with another conjunct.
CREATE MATERIALIZED VIEW not_apple_and_active AS
  SELECT id FROM person AS p WHERE NOT (EXISTS (SELECT 1 FROM bid AS b WHERE b.bidder = p.id AND b.channel = 'Apple') AND p.active);
-- entry: sq_semi_join_forms
-- needs: semi_join
-- The forms that are semi or anti joins already: NOT IN with a NULL on
-- the left (never true) or in a correlated set (a category with a NULL
-- reserve keeps none of its auctions, until the reserve changes), NOT IN
-- under NOT, and NOT NOT EXISTS.
CREATE MATERIALIZED VIEW states_without_rich AS
  SELECT id, state FROM person WHERE state NOT IN (SELECT state FROM person WHERE credit > 9000 AND state IS NOT NULL);
CREATE MATERIALIZED VIEW reserve_unique AS
  SELECT a.id, a.reserve FROM auction AS a
  WHERE a.reserve NOT IN (SELECT a2.reserve FROM auction AS a2 WHERE a2.category = a.category AND a2.id <> a.id);
CREATE MATERIALIZED VIEW not_in_under_not AS
  SELECT id, g FROM ev WHERE NOT (g NOT IN (SELECT g FROM ev WHERE k = 'b' AND g IS NOT NULL));
CREATE MATERIALIZED VIEW double_negation AS
  SELECT id FROM auction AS a WHERE NOT NOT EXISTS (SELECT 1 FROM bid AS b WHERE b.auction = a.id AND b.price > 60000);

-- entry: sq_expr_having_case
-- needs: subquery_expr
-- IN in HAVING under OR, and IN and EXISTS inside CASE.
CREATE MATERIALIZED VIEW active_or_busy AS
  SELECT bidder, COUNT(*) AS n FROM bid GROUP BY bidder
  HAVING bidder IN (SELECT id FROM person WHERE active) OR COUNT(*) > 30;
CREATE MATERIALIZED VIEW roles AS
  SELECT p.id, CASE WHEN p.id IN (SELECT seller FROM auction) THEN 'seller'
                    WHEN EXISTS (SELECT 1 FROM bid AS b WHERE b.bidder = p.id AND b.price > 40000) THEN 'big bidder'
                    ELSE 'other' END AS role
  FROM person AS p;

-- entry: sq_expr_over_views
-- needs: subquery_expr
-- Subquery predicates over views of aggregates that retract.
CREATE MATERIALIZED VIEW mid AS SELECT auction FROM bid GROUP BY auction HAVING COUNT(*) BETWEEN 10 AND 30;
CREATE MATERIALIZED VIEW mid_flags AS
  SELECT a.id, a.id IN (SELECT auction FROM mid) AS is_mid, a.id NOT IN (SELECT auction FROM mid) AS not_mid FROM auction AS a;
CREATE MATERIALIZED VIEW mid_or_cheap AS
  SELECT id, reserve FROM auction WHERE id IN (SELECT auction FROM mid) OR reserve < 500;

-- entry: sq_expr_table_dml
-- needs: subquery_expr, table_dml
-- Subquery predicates over tables the entry changes in bulk.
CREATE MATERIALIZED VIEW flags AS
  SELECT p.id, p.id IN (SELECT seller FROM auction WHERE reserve IS NOT NULL) AS sells,
         EXISTS (SELECT 1 FROM auction AS a WHERE a.seller = p.id AND a.category = 11) AS sells_11
  FROM person AS p;
CREATE MATERIALIZED VIEW not_reserved AS
  SELECT id FROM person WHERE id NOT IN (SELECT reserve DIV 100 FROM auction) OR state IS NULL;
-- dml 1:
UPDATE auction SET reserve = NULL WHERE category = 11;
-- dml 2:
DELETE FROM person WHERE id > 40;
-- dml 4:
UPDATE auction SET reserve = 1200, category = 11 WHERE id % 4 = 0;
