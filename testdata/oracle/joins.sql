-- Joins (SQL.md, "Joins"). Joins of tables, views and unbounded streams
-- are regular joins with retractions: their final result is the batch
-- join of the final inputs. A stream joined with a table on its key is a
-- lookup join against the table's row current when the stream row is
-- processed: the harness then flushes after every batch, and SQLite joins
-- each bid with the table as of the bid's round (<table>_versions).

-- entry: join_tables
-- needs: join
-- Two tables that both change.
CREATE MATERIALIZED VIEW v AS
  SELECT a.id, a.category, a.reserve, p.name, p.state
  FROM auction AS a JOIN person AS p ON a.seller = p.id;

-- entry: join_views
-- needs: join
-- An aggregate view joined with a filtered view of a table.
CREATE MATERIALIZED VIEW per_bidder AS
  SELECT bidder, COUNT(*) AS n, SUM(price) AS total FROM bid GROUP BY bidder;
CREATE MATERIALIZED VIEW active_people AS
  SELECT id, name, state FROM person WHERE active;
CREATE MATERIALIZED VIEW v AS
  SELECT b.bidder, b.n, b.total, p.name, p.state FROM per_bidder AS b JOIN active_people AS p ON b.bidder = p.id;

-- entry: join_streams
-- needs: join
-- Two unbounded streams without a time bound: a regular join.
CREATE MATERIALIZED VIEW v AS
  SELECT b.auction, b.price, e.k, e.g FROM bid AS b JOIN ev AS e ON b.bidder = e.id WHERE b.price > 500;

-- entry: join_then_aggregate
-- needs: join
CREATE MATERIALIZED VIEW v AS
  SELECT p.state, COUNT(*) AS auctions, SUM(a.reserve) AS reserves, COUNT(DISTINCT a.category) AS categories
  FROM auction AS a JOIN person AS p ON a.seller = p.id GROUP BY p.state;

-- entry: join_three_way
-- needs: join
CREATE MATERIALIZED VIEW per_auction AS
  SELECT auction, COUNT(*) AS n, MAX(price) AS hi FROM bid GROUP BY auction;
CREATE MATERIALIZED VIEW v AS
  SELECT pa.auction, pa.n, pa.hi, a.category, p.name
  FROM per_auction AS pa JOIN auction AS a ON pa.auction = a.id JOIN person AS p ON a.seller = p.id;

-- entry: left_join_tables
-- needs: join, outer_join
-- People without auctions keep a row with NULLs.
CREATE MATERIALIZED VIEW v AS
  SELECT p.id, p.name, a.id AS auction, a.category
  FROM person AS p LEFT JOIN auction AS a ON a.seller = p.id;

-- entry: right_join_tables
-- needs: join, outer_join
CREATE MATERIALIZED VIEW v AS
  SELECT a.id, a.seller, p.name FROM person AS p RIGHT JOIN auction AS a ON a.seller = p.id AND p.active;

-- entry: full_join_views
-- needs: join, outer_join
-- Bidders without a person row and people without bids on both sides.
CREATE MATERIALIZED VIEW per_bidder AS
  SELECT bidder, COUNT(*) AS n FROM bid GROUP BY bidder;
CREATE MATERIALIZED VIEW v AS
  SELECT b.bidder, b.n, p.id, p.name FROM per_bidder AS b FULL OUTER JOIN person AS p ON b.bidder = p.id;

-- entry: outer_join_null_keys
-- needs: join, outer_join
-- NULL keys never match: the NULL group keeps NULLs from the right.
CREATE MATERIALIZED VIEW v AS
  SELECT a.k, a.n, b.total FROM
    (SELECT k, COUNT(*) AS n FROM ev GROUP BY k) AS a
    LEFT JOIN (SELECT k, SUM(g) AS total FROM ev WHERE g > 0 GROUP BY k) AS b ON a.k = b.k;

-- entry: semi_join_in
-- needs: semi_join
-- Bids of active people; people's changes retract and re-add bids. The
-- subquery reads a view, not the table, so that this is a regular semi
-- join rather than a lookup.
CREATE MATERIALIZED VIEW active_people AS SELECT id FROM person WHERE active;
CREATE MATERIALIZED VIEW v AS
  SELECT auction, bidder, price FROM bid WHERE bidder IN (SELECT id FROM active_people);

-- entry: anti_join_not_exists
-- needs: semi_join
CREATE MATERIALIZED VIEW v AS
  SELECT id, seller FROM auction AS a
  WHERE NOT EXISTS (SELECT 1 FROM bid AS b WHERE b.auction = a.id AND b.price > 50000);

-- entry: exists_correlated
-- needs: semi_join
CREATE MATERIALIZED VIEW v AS
  SELECT id, name FROM person AS p WHERE EXISTS (SELECT 1 FROM bid AS b WHERE b.bidder = p.id AND b.price > 50000);

-- entry: not_in_with_nulls
-- needs: semi_join
-- NOT IN over a subquery that yields a NULL is never true: no row (while
-- IN keeps its matches).
CREATE MATERIALIZED VIEW not_in AS
  SELECT id, g FROM ev WHERE g NOT IN (SELECT g FROM ev WHERE k = 'c');
CREATE MATERIALIZED VIEW in_list AS
  SELECT id, g FROM ev WHERE g IN (SELECT g FROM ev WHERE k = 'c');

-- entry: lookup_join_person
-- needs: lookup_join, join
CREATE MATERIALIZED VIEW v AS
  SELECT b.auction, b.price, b.date_time, p.name, p.state FROM bid AS b JOIN person AS p ON b.bidder = p.id;
-- sqlite v:
SELECT b.auction, b.price, b.date_time, p.name, p.state
FROM bid_rounds AS b JOIN person_versions AS p ON p.id = b.bidder
  AND p._round = (SELECT MAX(x._round) FROM person_versions AS x WHERE x.id = b.bidder AND x._round <= b._round);

-- entry: lookup_left_join_auction
-- needs: lookup_join, join, outer_join
-- Bids of auctions that do not exist (yet) keep NULLs.
CREATE MATERIALIZED VIEW v AS
  SELECT b.auction, b.price, a.category, a.reserve FROM bid AS b LEFT JOIN auction AS a ON b.auction = a.id;
-- sqlite v:
SELECT b.auction, b.price, a.category, a.reserve
FROM bid_rounds AS b LEFT JOIN auction_versions AS a ON a.id = b.auction
  AND a._round = (SELECT MAX(x._round) FROM auction_versions AS x WHERE x.id = b.auction AND x._round <= b._round);

-- entry: interval_join
-- needs: interval_join, watermark
-- Pairs of bids on one auction by different bidders within a second.
CREATE MATERIALIZED VIEW v AS
  SELECT b1.auction, b1.bidder AS first_bidder, b2.bidder AS second_bidder, b1.date_time, b2.date_time AS later
  FROM bid AS b1 JOIN bid AS b2 ON b1.auction = b2.auction
    AND b2.date_time BETWEEN b1.date_time AND b1.date_time + INTERVAL '1' SECOND
  WHERE b1.bidder <> b2.bidder;

-- entry: window_max_bids
-- needs: window, join
-- Nexmark q7's shape: the bids that have the highest price of their
-- 10-second window.
CREATE MATERIALIZED VIEW v AS
  SELECT b.auction, b.price, b.bidder, b.date_time FROM bid AS b JOIN (
    SELECT window_start, window_end, MAX(price) AS hi
    FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end) AS m
  ON b.price = m.hi AND b.date_time >= m.window_start AND b.date_time < m.window_end;

-- entry: join_key_in_every_branch
-- needs: join
-- TPC-H q19's shape: the join's key sits in every branch of a
-- disjunction (FactorOr takes it out, and filters each side by what every
-- branch requires of it); the tables change and retract rows.
CREATE MATERIALIZED VIEW v AS
  SELECT a.id, a.category, p.name, p.state
  FROM auction AS a, person AS p
  WHERE (a.seller = p.id AND a.category = 10 AND p.state IN ('OR', 'WA') AND a.reserve > 1000)
     OR (a.seller = p.id AND a.category = 11 AND p.state = 'CA')
     OR (a.seller = p.id AND a.reserve < 500 AND p.active);

-- entry: join_or_sides
-- needs: join
-- A disjunction in an inner join's condition over both sides, no branch
-- sharing a conjunct: each side is filtered by what every branch needs.
CREATE MATERIALIZED VIEW v AS
  SELECT a.id, p.id AS pid
  FROM auction AS a JOIN person AS p ON a.seller = p.id AND ((a.category = 10 AND p.state = 'CA') OR (a.category > 12 AND p.active));
