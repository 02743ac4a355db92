-- Tables changed mid-run by the entries' own statements: `-- dml N:`
-- blocks run UPDATE, DELETE and INSERT ... VALUES on person and auction
-- after round N's rows (see README.md), so views see retractions that no
-- upsert of the generator makes: many rows changed by one statement,
-- deleted keys that the generator's later upserts bring back, keys the
-- generator never writes. SQLite replays the tables round by round with
-- the same statements in between.

-- entry: dml_filtered_person
-- needs: table_dml
-- Credits raised and cut across whole states, people deleted and coming
-- back with the generator's next upsert of their key.
CREATE MATERIALIZED VIEW rich AS SELECT id, name, credit FROM person WHERE credit > 5000;
CREATE MATERIALIZED VIEW active_by_state AS
  SELECT state, COUNT(*) AS n, SUM(credit) AS total, MIN(credit) AS lo, MAX(credit) AS hi
  FROM person WHERE active GROUP BY state;
-- dml 1:
UPDATE person SET credit = credit + 2500.25 WHERE state = 'WA';
DELETE FROM person WHERE id % 4 = 1;
-- dml 3:
UPDATE person SET active = NOT active WHERE city = 'Boise' OR city IS NULL;
UPDATE person SET credit = credit - 1000.50 WHERE credit > 8000;
-- dml 4:
DELETE FROM person WHERE state IS NULL;

-- entry: dml_new_keys
-- needs: table_dml
-- Keys the generator never writes: inserted, updated, deleted and
-- inserted again.
CREATE MATERIALIZED VIEW everyone AS SELECT id, name, city, state, credit, active FROM person;
CREATE MATERIALIZED VIEW per_city AS SELECT city, COUNT(*) AS n, COUNT(DISTINCT state) AS states FROM person GROUP BY city;
-- dml 0:
INSERT INTO person VALUES (101, 'zed_101', 'z101@example.com', 'Reno', 'NV', 12.34, TRUE, TIMESTAMP '2024-02-29 08:00:00'),
  (102, 'zed_102', 'z102@example.com', NULL, 'NV', 56.78, FALSE, TIMESTAMP '2024-02-29 09:00:00');
-- dml 2:
UPDATE person SET city = 'Boise', state = 'ID' WHERE id = 101;
DELETE FROM person WHERE id = 102;
-- dml 4:
INSERT INTO person VALUES (102, 'zed_102', 'z102@example.com', 'Reno', NULL, 99.01, TRUE, TIMESTAMP '2024-02-29 09:00:00');
UPDATE person SET city = CONCAT(city, '!') WHERE id > 100 OR id < 5;

-- entry: dml_min_max_retract
-- needs: table_dml
-- The extremes deleted: MIN and MAX must fall back to the next values.
CREATE MATERIALIZED VIEW extremes AS
  SELECT COUNT(*) AS n, MIN(credit) AS lo, MAX(credit) AS hi, MIN(joined) AS first_joined, MAX(name) AS last_name
  FROM person;
CREATE MATERIALIZED VIEW reserve_extremes AS
  SELECT category, MIN(reserve) AS lo, MAX(reserve) AS hi, COUNT(reserve) AS with_reserve FROM auction GROUP BY category;
-- dml 1:
DELETE FROM person WHERE credit > 9000 OR credit < 1000;
DELETE FROM auction WHERE reserve >= 4000;
-- dml 2:
UPDATE auction SET reserve = NULL WHERE category = 12;
-- dml 3:
DELETE FROM person WHERE name > 'hal';
UPDATE auction SET reserve = reserve + 1 WHERE reserve IS NOT NULL;

-- entry: dml_auction_categories
-- needs: table_dml
-- Whole categories moved, reserves cleared, auctions deleted.
CREATE MATERIALIZED VIEW per_category AS
  SELECT category, COUNT(*) AS n, SUM(reserve) AS reserves, COUNT(DISTINCT seller) AS sellers FROM auction GROUP BY category;
CREATE MATERIALIZED VIEW cheap AS SELECT id, seller, reserve FROM auction WHERE reserve < 1000 OR reserve IS NULL;
-- dml 0:
UPDATE auction SET category = 14 WHERE category = 10;
-- dml 2:
DELETE FROM auction WHERE seller % 3 = 0;
UPDATE auction SET reserve = NULL, category = 10 WHERE id % 5 = 0;
-- dml 4:
UPDATE auction SET expires = expires + INTERVAL '1' HOUR, reserve = 0 WHERE category = 11;

-- entry: dml_regular_join
-- needs: table_dml, join
-- Bids joined with a view of the table (a regular join, not a lookup):
-- every change of a person retracts and re-adds their bids.
CREATE MATERIALIZED VIEW people AS SELECT id, name, state FROM person WHERE active;
CREATE MATERIALIZED VIEW bids_by_state AS
  SELECT p.state, COUNT(*) AS n, SUM(b.price) AS total FROM bid AS b JOIN people AS p ON b.bidder = p.id GROUP BY p.state;
CREATE MATERIALIZED VIEW big_bids AS
  SELECT b.auction, b.price, p.name FROM bid AS b JOIN people AS p ON b.bidder = p.id WHERE b.price > 40000;
-- dml 1:
UPDATE person SET state = 'CA' WHERE state = 'OR';
-- dml 2:
DELETE FROM person WHERE id BETWEEN 10 AND 20;
-- dml 3:
UPDATE person SET active = TRUE WHERE id % 2 = 0;
-- dml 5:
UPDATE person SET name = CONCAT('x', name) WHERE id < 10;

-- entry: dml_auction_join
-- needs: table_dml, join
-- Bids per category through a view of the auctions whose categories the
-- entry moves.
CREATE MATERIALIZED VIEW auctions AS SELECT id, category, reserve FROM auction;
CREATE MATERIALIZED VIEW per_category AS
  SELECT a.category, COUNT(*) AS n, MAX(b.price) AS hi FROM bid AS b JOIN auctions AS a ON b.auction = a.id GROUP BY a.category;
CREATE MATERIALIZED VIEW above_reserve AS
  SELECT a.id, COUNT(*) AS n FROM bid AS b JOIN auctions AS a ON b.auction = a.id WHERE b.price > a.reserve GROUP BY a.id;
-- dml 1:
UPDATE auction SET category = 13 WHERE id < 1005;
-- dml 3:
DELETE FROM auction WHERE category = 13;
UPDATE auction SET reserve = 5000 WHERE reserve IS NULL;

-- entry: dml_outer_join
-- needs: table_dml, outer_join
-- People without auctions, as auctions and people are deleted.
CREATE MATERIALIZED VIEW sellers AS
  SELECT p.id, p.name, COUNT(a.id) AS auctions FROM person AS p LEFT JOIN auction AS a ON a.seller = p.id GROUP BY p.id, p.name;
-- dml 1:
DELETE FROM auction WHERE id % 2 = 0;
-- dml 4:
DELETE FROM person WHERE id IN (SELECT seller FROM auction);

-- entry: dml_semi_join
-- needs: table_dml, semi_join
-- IN and NOT EXISTS over tables the entry changes.
CREATE MATERIALIZED VIEW sellers AS SELECT id, name FROM person WHERE id IN (SELECT seller FROM auction);
CREATE MATERIALIZED VIEW non_sellers AS
  SELECT id, name FROM person AS p WHERE NOT EXISTS (SELECT 1 FROM auction AS a WHERE a.seller = p.id);
-- dml 2:
UPDATE auction SET seller = seller + 1 WHERE category = 11;
-- dml 3:
DELETE FROM auction WHERE reserve > 2500;
INSERT INTO auction VALUES (1100, 44, 10, 100, TIMESTAMP '2024-03-01 10:30:00');

-- entry: dml_window_funcs
-- needs: table_dml, window_func
-- Ranks and running sums over a table whose rows the entry deletes and
-- changes in bulk.
CREATE MATERIALIZED VIEW ranked AS
  SELECT id, credit, RANK() OVER (ORDER BY credit DESC) AS r, DENSE_RANK() OVER (ORDER BY city) AS city_rank,
         SUM(credit) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS near_credit
  FROM person;
CREATE MATERIALIZED VIEW neighbours AS
  SELECT id, LAG(id, 1, 0) OVER (ORDER BY joined, id) AS before, LEAD(name) OVER (ORDER BY joined, id) AS after
  FROM person WHERE active;
-- dml 1:
DELETE FROM person WHERE id % 5 = 0;
-- dml 2:
UPDATE person SET credit = 5000.01 WHERE city = 'Kent';
-- dml 4:
UPDATE person SET joined = joined - INTERVAL '1' DAY WHERE id % 3 = 0;

-- entry: dml_setops
-- needs: table_dml, setop
-- Set operations over tables the entry changes.
CREATE MATERIALIZED VIEW cities_both AS
  SELECT city FROM person WHERE active INTERSECT SELECT city FROM person WHERE NOT active;
CREATE MATERIALIZED VIEW people_not_selling AS SELECT id FROM person EXCEPT SELECT seller FROM auction;
-- dml 1:
UPDATE person SET active = FALSE WHERE city = 'Seattle';
-- dml 3:
DELETE FROM auction WHERE seller < 25;
-- dml 5:
UPDATE person SET active = TRUE WHERE city = 'Seattle';

-- entry: dml_topn_distinct
-- needs: table_dml, topn
-- Top-N and DISTINCT over a table losing its top rows.
CREATE MATERIALIZED VIEW top3 AS
  SELECT id, credit FROM (SELECT id, credit, ROW_NUMBER() OVER (ORDER BY credit DESC, id) AS rn FROM person) AS t
  WHERE rn <= 3;
CREATE MATERIALIZED VIEW states AS SELECT DISTINCT state, active FROM person;
-- dml 1:
DELETE FROM person WHERE credit > 9000;
-- dml 2:
UPDATE person SET state = 'ID' WHERE state = 'WA';
-- dml 3:
DELETE FROM person WHERE credit > 8500;

-- entry: dml_view_chain
-- needs: table_dml
-- Views over views over a table the entry changes.
CREATE MATERIALIZED VIEW per_state AS SELECT state, COUNT(*) AS n, SUM(credit) AS total FROM person GROUP BY state;
CREATE MATERIALIZED VIEW big_states AS SELECT state, total FROM per_state WHERE n >= 8;
CREATE MATERIALIZED VIEW summary AS SELECT COUNT(*) AS states, SUM(n) AS people, MAX(total) AS richest FROM per_state;
-- dml 1:
UPDATE person SET state = 'OR' WHERE state = 'CA';
-- dml 2:
DELETE FROM person WHERE state = 'OR' AND id % 2 = 0;
-- dml 5:
UPDATE person SET state = NULL WHERE state = 'ID';
